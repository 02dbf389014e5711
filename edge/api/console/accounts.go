package console

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"time"

	"github.com/alertd/alertd/edge/api/admin"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// accountView is one account: its subscriptions (as the admin API shows
// them) and its keys (by id: the hex SHA-256; the key in clear is shown
// once, when issued).
type accountView struct {
	AccountID     string                   `json:"account_id"`
	Subscriptions []admin.SubscriptionView `json:"subscriptions"`
	Keys          []keyView                `json:"keys"`
	LastChange    time.Time                `json:"last_change"`
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
			v = &accountView{AccountID: id, Subscriptions: []admin.SubscriptionView{}, Keys: []keyView{}}
			by[id] = v
		}
		return v
	}
	for _, s := range subs {
		v := get(s.AccountID)
		v.Subscriptions = append(v.Subscriptions, admin.ViewSubscription(s))
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
		slices.SortFunc(v.Subscriptions, func(a, b admin.SubscriptionView) int { return cmp.Compare(a.Product, b.Product) })
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
