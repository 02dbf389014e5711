package ct

import (
	"errors"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

type targetView struct {
	Handle       string  `json:"handle"`
	SocialUserID *string `json:"social_user_id"`
	AddedAt      string  `json:"added_at"`
}

type targetListView struct {
	Targets    []targetView `json:"targets"`
	Count      int          `json:"count"`
	MaxHandles int          `json:"max_handles"`
}

func (a *api) listTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	items := a.d.Registry.Items(p.AccountID)
	v := targetListView{Targets: make([]targetView, 0, len(items)), Count: len(items), MaxHandles: httpkit.HandleLimit(p)}
	for _, it := range items {
		v.Targets = append(v.Targets, targetView{Handle: it.Name, SocialUserID: httpkit.UserID(a.d.Dir, it.Name), AddedAt: httpkit.WatchTime(it.AddedAt)})
	}
	return 200, v, nil
}

// addTarget is POST /v1/ct/targets: `handle` required; 403
// handle_limit_reached at the ceiling.
func (a *api) addTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, _, err := httpkit.HandleBody(ctx)
	if err != nil {
		return 0, nil, err
	}
	d := &a.d
	max := httpkit.HandleLimit(p)
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	it, err := d.Registry.Add(cctx, p.AccountID, h, struct{}{}, max)
	switch {
	case errors.Is(err, watchlist.ErrExists):
		return 0, nil, protocol.Conflict("handle already watched")
	case errors.Is(err, watchlist.ErrLimit):
		return 0, nil, httpkit.HandleLimitError("ct", d.Registry.Count(p.AccountID), max)
	case err != nil:
		return 0, nil, err
	}
	d.Detector.Added(p.AccountID, it.Name) // its memberships known now count at once
	return 201, targetView{Handle: it.Name, SocialUserID: httpkit.UserID(a.d.Dir, it.Name), AddedAt: httpkit.WatchTime(it.AddedAt)}, nil
}

// removeTarget is DELETE /v1/ct/targets/{handle}: 404 if not watched.
func (a *api) removeTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(httpkit.PathValue(ctx, "handle"))
	d := &a.d
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err := d.Registry.Remove(cctx, p.AccountID, h)
	if errors.Is(err, watchlist.ErrNotWatched) {
		return 0, nil, protocol.NotFound("handle not watched")
	}
	if err != nil {
		return 0, nil, err
	}
	d.Detector.Unwatch(h)
	d.Tracker.Unwatch(h) // the tracker follows it for CT too
	return 200, httpkit.RemovedHandle{Removed: h, Count: d.Registry.Count(p.AccountID), Limit: httpkit.HandleLimit(p)}, nil
}

type convergenceView struct {
	Convergences []ct.Data `json:"convergences"`
	Count        int       `json:"count"`
}

// convergence is GET /v1/ct/convergence: the convergences that hold now
// under the account's settings, largest first.
func (a *api) convergence(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cur, err := a.d.Detector.Current(p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	if cur == nil {
		cur = []ct.Data{}
	}
	return 200, convergenceView{Convergences: cur, Count: len(cur)}, nil
}

// historyMax is spec 3's "last 50".
const historyMax = 50

type historyView struct {
	Convergences []json.RawMessage `json:"convergences"`
	Count        int               `json:"count"`
	Limit        int               `json:"limit"`
}

// history is GET /v1/ct/convergence/history?limit=: the newest
// convergences reported, newest first; limit 1 to 50 (default 50, larger
// values count as 50).
func (a *api) history(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	limit := historyMax
	if raw := ctx.QueryArgs().Peek("limit"); raw != nil {
		n, err := strconv.Atoi(string(raw))
		if err != nil || n < 1 {
			return 0, nil, protocol.BadRequest("limit must be a positive integer")
		}
		limit = min(n, historyMax)
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	evs, err := a.d.Store.WatchEvents(cctx, protocol.ProductCT, p.AccountID, limit)
	if err != nil {
		return 0, nil, err
	}
	v := historyView{Convergences: make([]json.RawMessage, 0, len(evs)), Limit: limit}
	for _, e := range evs {
		v.Convergences = append(v.Convergences, json.RawMessage(e.Data))
	}
	v.Count = len(v.Convergences)
	return 200, v, nil
}

func (a *api) getSettings(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	return 200, a.d.Registry.Settings(p.AccountID), nil
}

// settingsPatch is a decoded PATCH /v1/ct/settings body: each set* says
// whether the member was present.
type settingsPatch struct {
	conv, win, floor          int64
	setConv, setWin, setFloor bool
}

// readSettings reads min_convergence (2 to 20), time_window_hours (1 to
// 168) and min_member_count (0 or more), all optional, all checked before
// any is applied.
func readSettings(m map[string]json.RawMessage) (settingsPatch, error) {
	var p settingsPatch
	var err error
	if p.conv, p.setConv, err = httpkit.IntMember(m, "min_convergence", ct.MinConvergenceLow, ct.MinConvergenceHigh); err != nil {
		return p, err
	}
	if p.win, p.setWin, err = httpkit.IntMember(m, "time_window_hours", ct.WindowHoursLow, ct.WindowHoursHigh); err != nil {
		return p, err
	}
	p.floor, p.setFloor, err = httpkit.IntMember(m, "min_member_count", 0, -1)
	return p, err
}

// patchSettings is PATCH /v1/ct/settings (readSettings).
func (a *api) patchSettings(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	in, err := readSettings(m)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	out, err := a.d.Registry.UpdateSettings(cctx, p.AccountID, func(st *ct.Settings) error {
		if in.setConv {
			st.MinConvergence = int(in.conv)
		}
		if in.setWin {
			st.TimeWindowHours = int(in.win)
		}
		if in.setFloor {
			st.MinMemberCount = in.floor
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return 200, out, nil
}

type statusView struct {
	HandlesTracked    int  `json:"handles_tracked"`
	HandleLimit       int  `json:"handle_limit"`
	Convergences24h   int  `json:"convergences_24h"`
	WebhookConfigured bool `json:"webhook_configured"`
}

func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &a.d
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	n, err := a.d.Store.CountWatchEvents(cctx, protocol.ProductCT, p.AccountID, a.k.Now().Add(-24*time.Hour))
	if err != nil {
		return 0, nil, err
	}
	_, hook := d.Registry.Webhook(p.AccountID)
	return 200, statusView{HandlesTracked: d.Registry.Count(p.AccountID), HandleLimit: httpkit.HandleLimit(p), Convergences24h: n,
		WebhookConfigured: hook}, nil
}
