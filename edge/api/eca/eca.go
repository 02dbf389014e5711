package eca

import (
	"errors"
	"strconv"

	"github.com/alertd/alertd/actors/product/eca"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// entryView is a watchlist entry in list responses; unset criteria are null.
type entryView struct {
	ID              int64   `json:"id"`
	Ticker          *string `json:"ticker"`
	TokenName       *string `json:"token_name"`
	ContractAddress *string `json:"contract_address"`
	CreatorAddress  *string `json:"creator_address"`
	Source          string  `json:"source"`
	Status          string  `json:"status"`
	CreatedAt       string  `json:"created_at"`
	ExpiresAt       string  `json:"expires_at"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func entry(e persistence.ECAEntry) entryView {
	return entryView{ID: e.ID, Ticker: orNull(e.Ticker), TokenName: orNull(e.TokenName),
		ContractAddress: orNull(e.ContractAddress), CreatorAddress: orNull(e.CreatorAddress), Source: e.Source,
		Status: string(persistence.ECAActive), CreatedAt: e.CreatedAt.UTC().Format(httpkit.ISOMillis),
		ExpiresAt: e.ExpiresAt.UTC().Format(httpkit.ISOMillis)}
}

// watchlist is GET /v1/eca/watchlist: `data` is the array of active
// entries (none or one).
func (a *api) watchlist(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := a.d.Service.Watchlist.Active(p.AccountID)
	out := make([]entryView, 0, len(list))
	for _, e := range list {
		out = append(out, entry(e))
	}
	return 200, out, nil
}

// add is POST /v1/eca/watchlist: creator_address alone, or any of
// ticker, token_name and contract_address. A second active entry is refused
// with 403 (one active entry is the plan's ceiling).
func (a *api) add(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	var c eca.Criteria
	for _, f := range []struct {
		name string
		dst  *string
	}{{"ticker", &c.Ticker}, {"token_name", &c.TokenName}, {"contract_address", &c.ContractAddress},
		{"creator_address", &c.CreatorAddress}} {
		raw, ok := m[f.name]
		if !ok || httpkit.IsNull(raw) {
			continue
		}
		if json.Unmarshal(raw, f.dst) != nil {
			return 0, nil, protocol.BadRequest(f.name + " must be a string")
		}
	}
	c.Normalize()
	if err := c.Validate(); err != nil {
		return 0, nil, protocol.BadRequest(err.Error())
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	e, err := a.d.Service.Watchlist.Create(cctx, p.AccountID, c)
	if errors.Is(err, eca.ErrActiveEntry) {
		return 0, nil, protocol.Forbidden("only one watchlist entry may be active at a time").
			WithHint("remove it with DELETE /v1/eca/watchlist/{id}, or wait until it matches or expires")
	}
	if err != nil {
		return 0, nil, err
	}
	return 201, entry(e), nil
}

// remove is DELETE /v1/eca/watchlist/{id}: 404 unless the entry is active.
func (a *api) remove(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id, err := strconv.ParseInt(httpkit.PathValue(ctx, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, protocol.NotFound("no active watchlist entry with this id")
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err = a.d.Service.Watchlist.Remove(cctx, p.AccountID, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("no active watchlist entry with this id")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]int64{"removed": id}, nil
}

// matches is GET /v1/eca/matches: `data` is the array of the match data
// of the last 24 hours, newest first.
func (a *api) matches(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	list, err := a.d.Service.Matches(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	return 200, list, nil
}

type statusView struct {
	httpkit.PlanStatus
	ActiveEntries int `json:"active_entries"`
	MaxEntries    int `json:"max_entries"`
	TotalMatches  int `json:"total_matches"`
}

// status is GET /v1/eca/status: active entries and total matches.
func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	svc := a.d.Service
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	n, err := svc.TotalMatches(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	return 200, statusView{PlanStatus: httpkit.StatusOf(p), ActiveEntries: len(svc.Watchlist.Active(p.AccountID)),
		MaxEntries: protocol.ECAActiveEntries, TotalMatches: n}, nil
}
