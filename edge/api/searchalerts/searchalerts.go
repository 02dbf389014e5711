package searchalerts

import (
	"errors"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/searchalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

type queryView struct {
	QueryID   int64     `json:"query_id"`
	QueryText string    `json:"query_text"`
	Interval  string    `json:"interval"`
	CreatedAt time.Time `json:"created_at"`
}

func query(q persistence.SAQuery) queryView {
	return queryView{QueryID: q.ID, QueryText: q.Text, Interval: q.Interval, CreatedAt: q.CreatedAt}
}

type queriesView struct {
	Queries    []queryView `json:"queries"`
	Count      int         `json:"count"`
	MaxQueries int         `json:"max_queries"`
}

// queries is GET /v1/sa/queries.
func (a *api) queries(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := a.d.Service.Queries.List(p.AccountID)
	v := queriesView{Queries: make([]queryView, 0, len(list)), Count: len(list), MaxQueries: protocol.SAMaxQueries}
	for _, q := range list {
		v.Queries = append(v.Queries, query(q))
	}
	return 200, v, nil
}

// add is POST /v1/sa/queries: `query_text` (1 to 200 characters) and an
// optional `interval` (1m, 5m, 10m, 30m, 1h or 6h; default 5m). 403 beyond 20
// queries, 409 for a query with the same words as a saved one.
func (a *api) add(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	text, err := httpkit.RequiredString(m, "query_text")
	if err != nil {
		return 0, nil, err
	}
	if _, _, err := searchalerts.ParseQuery(text); err != nil {
		return 0, nil, protocol.BadRequest(err.Error())
	}
	interval := searchalerts.DefaultInterval
	if raw, ok := m["interval"]; ok && !httpkit.IsNull(raw) {
		if json.Unmarshal(raw, &interval) != nil {
			return 0, nil, protocol.BadRequest("interval must be a string")
		}
		if _, ok := searchalerts.IntervalDuration(interval, a.k.Timings.SAIntervals); !ok {
			return 0, nil, protocol.BadRequest("interval must be one of 1m, 5m, 10m, 30m, 1h, 6h")
		}
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	q, err := a.d.Service.Create(cctx, p.AccountID, text, interval)
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
	return 201, query(q), nil
}

// remove is DELETE /v1/sa/queries/{id}.
func (a *api) remove(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id, err := strconv.ParseInt(httpkit.PathValue(ctx, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, protocol.NotFound("no query with this id")
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err = a.d.Service.Remove(cctx, p.AccountID, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("no query with this id")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]int64{"removed": id}, nil
}

type statusView struct {
	httpkit.PlanStatus
	QueryCount int `json:"query_count"`
	MaxQueries int `json:"max_queries"`
}

// status is GET /v1/sa/status: subscription status, query count, max queries.
func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	return 200, statusView{PlanStatus: httpkit.StatusOf(p), QueryCount: a.d.Service.Queries.Count(p.AccountID),
		MaxQueries: protocol.SAMaxQueries}, nil
}
