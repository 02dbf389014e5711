package edge

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/eca"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// ecaRoutes are the ECA routes under /v1/eca (spec 3).
func (s *Server) ecaRoutes(r *router.Router) {
	f := ProductFamily(protocol.ProductECA)
	r.GET("/v1/eca/watchlist", s.wrap(f, s.ecaWatchlist))
	r.POST("/v1/eca/watchlist", s.wrap(f, s.ecaAdd))
	r.DELETE("/v1/eca/watchlist/{id}", s.wrap(f, s.ecaRemove))
	r.GET("/v1/eca/matches", s.wrap(f, s.ecaMatches))
	r.GET("/v1/eca/status", s.wrap(f, s.ecaStatus))
	s.storedWebhookRoutes(r, "eca", protocol.ProductECA)
	if s.ws != nil {
		// /v1/eca/ws: the matches of the account's entries.
		r.GET("/v1/eca/ws", s.productSocket(protocol.ProductECA, accountScope(protocol.ProductECA, nil)))
	}
}

// ecaEntryView is a watchlist entry in list responses; unset criteria are null.
type ecaEntryView struct {
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

func ecaEntry(e persistence.ECAEntry) ecaEntryView {
	return ecaEntryView{ID: e.ID, Ticker: orNull(e.Ticker), TokenName: orNull(e.TokenName),
		ContractAddress: orNull(e.ContractAddress), CreatorAddress: orNull(e.CreatorAddress), Source: e.Source,
		Status: string(persistence.ECAActive), CreatedAt: e.CreatedAt.UTC().Format(isoMillis),
		ExpiresAt: e.ExpiresAt.UTC().Format(isoMillis)}
}

// ecaWatchlist is GET /v1/eca/watchlist: `data` is the array of active
// entries (none or one).
func (s *Server) ecaWatchlist(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := s.deps.Products2.ECA.Watchlist.Active(p.AccountID)
	out := make([]ecaEntryView, 0, len(list))
	for _, e := range list {
		out = append(out, ecaEntry(e))
	}
	return 200, out, nil
}

// ecaAdd is POST /v1/eca/watchlist: creator_address alone, or any of
// ticker, token_name and contract_address. A second active entry is refused
// with 403 (one active entry is the plan's ceiling).
func (s *Server) ecaAdd(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
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
		if !ok || isNull(raw) {
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
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := s.deps.Products2.ECA.Watchlist.Create(cctx, p.AccountID, c)
	if errors.Is(err, eca.ErrActiveEntry) {
		return 0, nil, protocol.Forbidden("only one watchlist entry may be active at a time").
			WithHint("remove it with DELETE /v1/eca/watchlist/{id}, or wait until it matches or expires")
	}
	if err != nil {
		return 0, nil, err
	}
	return 201, ecaEntry(e), nil
}

// ecaRemove is DELETE /v1/eca/watchlist/{id}: 404 unless the entry is active.
func (s *Server) ecaRemove(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id, err := strconv.ParseInt(pathValue(ctx, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, protocol.NotFound("no active watchlist entry with this id")
	}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = s.deps.Products2.ECA.Watchlist.Remove(cctx, p.AccountID, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("no active watchlist entry with this id")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]int64{"removed": id}, nil
}

// ecaMatches is GET /v1/eca/matches: `data` is the array of the match data
// of the last 24 hours, newest first.
func (s *Server) ecaMatches(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := s.deps.Products2.ECA.Matches(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	return 200, list, nil
}

type ecaStatusView struct {
	subscriptionStatus
	ActiveEntries int `json:"active_entries"`
	MaxEntries    int `json:"max_entries"`
	TotalMatches  int `json:"total_matches"`
}

// ecaStatus is GET /v1/eca/status: active entries and total matches.
func (s *Server) ecaStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	svc := s.deps.Products2.ECA
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := svc.TotalMatches(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	return 200, ecaStatusView{subscriptionStatus: statusOf(p), ActiveEntries: len(svc.Watchlist.Active(p.AccountID)),
		MaxEntries: protocol.ECAActiveEntries, TotalMatches: n}, nil
}
