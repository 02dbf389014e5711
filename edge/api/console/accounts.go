package console

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"time"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// accountView is one account: its subscriptions and its keys (by id: the
// hex SHA-256; the key in clear is shown once, when issued).
type accountView struct {
	AccountID     string             `json:"account_id"`
	Subscriptions []subscriptionView `json:"subscriptions"`
	Keys          []keyView          `json:"keys"`
	LastChange    time.Time          `json:"last_change"`
}

// subscriptionView has the field names of the admin API (CONTRACT.md
// section 2), so the console edits what it lists.
type subscriptionView struct {
	Product            protocol.Product `json:"product"`
	Plan               string           `json:"plan"`
	Modules            []string         `json:"modules"`
	MaxHandles         int              `json:"max_handles"`
	MaxTweets          int              `json:"max_tweets"`
	MaxWallets         int              `json:"max_wallets"`
	CASearchDailyLimit *int             `json:"ca_search_daily_limit"`
	LateDelivery       bool             `json:"late_delivery"`
	ExpiresAt          *time.Time       `json:"expires_at"`
	CreatedAt          time.Time        `json:"created_at"`
	UpdatedAt          time.Time        `json:"updated_at"`
}

type keyView struct {
	KeyID     string               `json:"key_id"`
	Product   protocol.Product     `json:"product"`
	State     persistence.KeyState `json:"state"`
	CreatedAt time.Time            `json:"created_at"`
	UpdatedAt time.Time            `json:"updated_at"`
}

// accounts is GET /admin/v1/accounts: every account that holds a
// subscription or a key, the most recently changed first (a key just
// issued is at the top).
func (a *API) accounts(ctx *fasthttp.RequestCtx) {
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	subs, err := a.d.Store.ListSubscriptions(cctx)
	if err != nil {
		a.fail(ctx, err)
		return
	}
	keys, err := a.d.Store.ListKeys(cctx)
	if err != nil {
		a.fail(ctx, err)
		return
	}
	list := buildAccounts(subs, keys)
	noStore(ctx)
	httpkit.WriteOK(ctx, 200, map[string]any{"accounts": list, "count": len(list)})
}

// buildAccounts groups subscriptions and keys by account.
func buildAccounts(subs []persistence.Subscription, keys []persistence.APIKey) []accountView {
	by := map[string]*accountView{}
	get := func(id string) *accountView {
		v := by[id]
		if v == nil {
			v = &accountView{AccountID: id, Subscriptions: []subscriptionView{}, Keys: []keyView{}}
			by[id] = v
		}
		return v
	}
	for _, s := range subs {
		v := get(s.AccountID)
		mods := s.Modules
		if mods == nil {
			mods = []string{}
		}
		v.Subscriptions = append(v.Subscriptions, subscriptionView{Product: s.Product, Plan: s.Plan, Modules: mods,
			MaxHandles: s.MaxHandles, MaxTweets: s.MaxTweets, MaxWallets: s.MaxWallets, CASearchDailyLimit: s.CASearchDailyLimit,
			LateDelivery: s.LateDelivery, ExpiresAt: s.ExpiresAt, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt})
		v.LastChange = later(v.LastChange, s.UpdatedAt)
	}
	for _, k := range keys {
		v := get(k.AccountID)
		v.Keys = append(v.Keys, keyView{KeyID: hex.EncodeToString(k.Hash), Product: k.Product, State: k.State,
			CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt})
		v.LastChange = later(v.LastChange, k.UpdatedAt)
	}
	out := make([]accountView, 0, len(by))
	for _, v := range by {
		slices.SortFunc(v.Subscriptions, func(a, b subscriptionView) int { return cmp.Compare(a.Product, b.Product) })
		slices.SortFunc(v.Keys, func(a, b keyView) int { return b.CreatedAt.Compare(a.CreatedAt) })
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b accountView) int {
		if c := b.LastChange.Compare(a.LastChange); c != 0 {
			return c
		}
		return cmp.Compare(a.AccountID, b.AccountID)
	})
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
