package edge

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/searchalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// saRoutes are the Search Alerts routes under /v1/sa (spec 3).
func (s *Server) saRoutes(r *router.Router) {
	f := ProductFamily(protocol.ProductSA)
	r.GET("/v1/sa/queries", s.wrap(f, s.saQueries))
	r.POST("/v1/sa/queries", s.wrap(f, s.saAdd))
	r.DELETE("/v1/sa/queries/{id}", s.wrap(f, s.saRemove))
	r.GET("/v1/sa/status", s.wrap(f, s.saStatus))
	s.storedWebhookRoutes(r, "sa", protocol.ProductSA)
	if s.ws != nil {
		// /v1/sa/ws: the alerts of the account's queries, as each query's
		// schedule flushes them.
		r.GET("/v1/sa/ws", s.productSocket(protocol.ProductSA, accountScope(protocol.ProductSA, nil)))
	}
}

type saQueryView struct {
	QueryID   int64     `json:"query_id"`
	QueryText string    `json:"query_text"`
	Interval  string    `json:"interval"`
	CreatedAt time.Time `json:"created_at"`
}

func saQuery(q persistence.SAQuery) saQueryView {
	return saQueryView{QueryID: q.ID, QueryText: q.Text, Interval: q.Interval, CreatedAt: q.CreatedAt}
}

type saQueriesView struct {
	Queries    []saQueryView `json:"queries"`
	Count      int           `json:"count"`
	MaxQueries int           `json:"max_queries"`
}

// saQueries is GET /v1/sa/queries.
func (s *Server) saQueries(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := s.deps.Products2.SA.Queries.List(p.AccountID)
	v := saQueriesView{Queries: make([]saQueryView, 0, len(list)), Count: len(list), MaxQueries: protocol.SAMaxQueries}
	for _, q := range list {
		v.Queries = append(v.Queries, saQuery(q))
	}
	return 200, v, nil
}

// saAdd is POST /v1/sa/queries: `query_text` (1 to 200 characters) and an
// optional `interval` (1m, 5m, 10m, 30m, 1h or 6h; default 5m). 403 beyond 20
// queries, 409 for a query with the same words as a saved one.
func (s *Server) saAdd(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["query_text"]
	if !ok {
		return 0, nil, errMissingField("query_text")
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return 0, nil, protocol.BadRequest("query_text must be a string")
	}
	if _, _, err := searchalerts.ParseQuery(text); err != nil {
		return 0, nil, protocol.BadRequest(err.Error())
	}
	interval := searchalerts.DefaultInterval
	if raw, ok := m["interval"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &interval) != nil {
			return 0, nil, protocol.BadRequest("interval must be a string")
		}
		if _, ok := searchalerts.IntervalDuration(interval, s.deps.Timings.SAIntervals); !ok {
			return 0, nil, protocol.BadRequest("interval must be one of 1m, 5m, 10m, 30m, 1h, 6h")
		}
	}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := s.deps.Products2.SA.Create(cctx, p.AccountID, text, interval)
	var dup *searchalerts.DuplicateError
	switch {
	case errors.Is(err, searchalerts.ErrLimit):
		return 0, nil, protocol.Forbidden("query limit reached (20)").
			WithHint("remove a query with DELETE /v1/sa/queries/{id}")
	case errors.As(err, &dup):
		return 0, nil, protocol.Conflict(dup.Error())
	case err != nil:
		return 0, nil, err
	}
	return 201, saQuery(q), nil
}

// saRemove is DELETE /v1/sa/queries/{id}.
func (s *Server) saRemove(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id, err := strconv.ParseInt(pathValue(ctx, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, protocol.NotFound("no query with this id")
	}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = s.deps.Products2.SA.Remove(cctx, p.AccountID, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("no query with this id")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]int64{"removed": id}, nil
}

type saStatusView struct {
	subscriptionStatus
	QueryCount int `json:"query_count"`
	MaxQueries int `json:"max_queries"`
}

// saStatus is GET /v1/sa/status: subscription status, query count, max queries.
func (s *Server) saStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	return 200, saStatusView{subscriptionStatus: statusOf(p), QueryCount: s.deps.Products2.SA.Queries.Count(p.AccountID),
		MaxQueries: protocol.SAMaxQueries}, nil
}
