package edge

import (
	"errors"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// ctRoutes are the Convergence Tracker's routes (spec 3).
func (s *Server) ctRoutes(r *router.Router) {
	f := ProductFamily(protocol.ProductCT)
	d := &s.deps.Products
	r.GET("/v1/ct/targets", s.wrap(f, s.ctListTargets))
	r.POST("/v1/ct/targets", s.wrap(f, s.ctAddTarget))
	r.DELETE("/v1/ct/targets/{handle}", s.wrap(f, s.ctRemoveTarget))
	r.GET("/v1/ct/convergence", s.wrap(f, s.ctConvergence))
	r.GET("/v1/ct/convergence/history", s.wrap(f, s.ctHistory))
	r.GET("/v1/ct/settings", s.wrap(f, s.ctGetSettings))
	r.PATCH("/v1/ct/settings", s.wrap(f, s.ctPatchSettings))
	r.GET("/v1/ct/status", s.wrap(f, s.ctStatus))
	s.watchWebhookRoutes(r, protocol.ProductCT, d.CT)
	if s.ws != nil {
		r.GET("/v1/ct/ws", s.productSocket(protocol.ProductCT, accountScope(protocol.ProductCT, nil)))
	}
}

type ctTargetView struct {
	Handle       string  `json:"handle"`
	SocialUserID *string `json:"social_user_id"`
	AddedAt      string  `json:"added_at"`
}

type ctTargetListView struct {
	Targets    []ctTargetView `json:"targets"`
	Count      int            `json:"count"`
	MaxHandles int            `json:"max_handles"`
}

func (s *Server) ctListTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	items := s.deps.Products.CT.Items(p.AccountID)
	v := ctTargetListView{Targets: make([]ctTargetView, 0, len(items)), Count: len(items), MaxHandles: handleLimit(p)}
	for _, it := range items {
		v.Targets = append(v.Targets, ctTargetView{Handle: it.Name, SocialUserID: s.watchSocialID(it.Name), AddedAt: watchISO(it.AddedAt)})
	}
	return 200, v, nil
}

// ctAddTarget is POST /v1/ct/targets: `handle` required; 403
// handle_limit_reached at the ceiling.
func (s *Server) ctAddTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, _, err := watchHandleBody(ctx)
	if err != nil {
		return 0, nil, err
	}
	d := &s.deps.Products
	max := handleLimit(p)
	cctx, cancel := watchCtx()
	defer cancel()
	it, err := d.CT.Add(cctx, p.AccountID, h, struct{}{}, max)
	switch {
	case errors.Is(err, watchlist.ErrExists):
		return 0, nil, protocol.Conflict("handle already watched")
	case errors.Is(err, watchlist.ErrLimit):
		return 0, nil, watchLimitError("ct", d.CT.Count(p.AccountID), max)
	case err != nil:
		return 0, nil, err
	}
	return 201, ctTargetView{Handle: it.Name, SocialUserID: s.watchSocialID(it.Name), AddedAt: watchISO(it.AddedAt)}, nil
}

// ctRemoveTarget is DELETE /v1/ct/targets/{handle}: 404 if not watched.
func (s *Server) ctRemoveTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(pathValue(ctx, "handle"))
	d := &s.deps.Products
	cctx, cancel := watchCtx()
	defer cancel()
	err := d.CT.Remove(cctx, p.AccountID, h)
	if errors.Is(err, watchlist.ErrNotWatched) {
		return 0, nil, protocol.NotFound("handle not watched")
	}
	if err != nil {
		return 0, nil, err
	}
	d.CTDetector.Unwatch(h)
	d.CWTracker.Unwatch(h) // the tracker follows it for CT too
	return 200, watchRemovedView{Removed: h, Count: d.CT.Count(p.AccountID), Limit: handleLimit(p)}, nil
}

type ctConvergenceView struct {
	Convergences []ct.Data `json:"convergences"`
	Count        int       `json:"count"`
}

// ctConvergence is GET /v1/ct/convergence: the convergences that hold now
// under the account's settings, largest first.
func (s *Server) ctConvergence(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cur, err := s.deps.Products.CTDetector.Current(p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	if cur == nil {
		cur = []ct.Data{}
	}
	return 200, ctConvergenceView{Convergences: cur, Count: len(cur)}, nil
}

// ctHistoryMax is spec 3's "last 50".
const ctHistoryMax = 50

type ctHistoryView struct {
	Convergences []json.RawMessage `json:"convergences"`
	Count        int               `json:"count"`
	Limit        int               `json:"limit"`
}

// ctHistory is GET /v1/ct/convergence/history?limit=: the newest
// convergences reported, newest first; limit 1 to 50 (default 50, larger
// values count as 50).
func (s *Server) ctHistory(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	limit := ctHistoryMax
	if raw := ctx.QueryArgs().Peek("limit"); raw != nil {
		n, err := strconv.Atoi(string(raw))
		if err != nil || n < 1 {
			return 0, nil, protocol.BadRequest("limit must be a positive integer")
		}
		limit = min(n, ctHistoryMax)
	}
	cctx, cancel := watchCtx()
	defer cancel()
	evs, err := s.deps.Store.WatchEvents(cctx, protocol.ProductCT, p.AccountID, limit)
	if err != nil {
		return 0, nil, err
	}
	v := ctHistoryView{Convergences: make([]json.RawMessage, 0, len(evs)), Limit: limit}
	for _, e := range evs {
		v.Convergences = append(v.Convergences, json.RawMessage(e.Data))
	}
	v.Count = len(v.Convergences)
	return 200, v, nil
}

func (s *Server) ctGetSettings(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	return 200, s.deps.Products.CT.Settings(p.AccountID), nil
}

// ctPatchSettings is PATCH /v1/ct/settings: min_convergence 2 to 20,
// time_window_hours 1 to 168, min_member_count 0 or more; all optional, all
// checked before any is applied.
func (s *Server) ctPatchSettings(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	conv, setConv, err := watchInt(m, "min_convergence", ct.MinConvergenceLow, ct.MinConvergenceHigh)
	if err != nil {
		return 0, nil, err
	}
	win, setWin, err := watchInt(m, "time_window_hours", ct.WindowHoursLow, ct.WindowHoursHigh)
	if err != nil {
		return 0, nil, err
	}
	floor, setFloor, err := watchInt(m, "min_member_count", 0, -1)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := watchCtx()
	defer cancel()
	out, err := s.deps.Products.CT.UpdateSettings(cctx, p.AccountID, func(st *ct.Settings) error {
		if setConv {
			st.MinConvergence = int(conv)
		}
		if setWin {
			st.TimeWindowHours = int(win)
		}
		if setFloor {
			st.MinMemberCount = floor
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return 200, out, nil
}

type ctStatusView struct {
	HandlesTracked    int  `json:"handles_tracked"`
	HandleLimit       int  `json:"handle_limit"`
	Convergences24h   int  `json:"convergences_24h"`
	WebhookConfigured bool `json:"webhook_configured"`
}

func (s *Server) ctStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &s.deps.Products
	cctx, cancel := watchCtx()
	defer cancel()
	n, err := s.deps.Store.CountWatchEvents(cctx, protocol.ProductCT, p.AccountID, s.now().Add(-24*time.Hour))
	if err != nil {
		return 0, nil, err
	}
	_, hook := d.CT.Webhook(p.AccountID)
	return 200, ctStatusView{HandlesTracked: d.CT.Count(p.AccountID), HandleLimit: handleLimit(p), Convergences24h: n,
		WebhookConfigured: hook}, nil
}
