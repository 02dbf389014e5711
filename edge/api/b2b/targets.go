package b2b

import (
	"errors"
	"fmt"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

type targetView struct {
	ID           int64     `json:"id"`
	ScreenName   string    `json:"screen_name"`
	DisplayName  string    `json:"display_name"`
	SocialUserID *string   `json:"social_user_id"`
	IsActive     bool      `json:"is_active"`
	CreatedAt    time.Time `json:"created_at"`
}

type targetListView struct {
	Targets    []targetView `json:"targets"`
	Count      int          `json:"count"`
	MaxHandles int          `json:"max_handles"`
}

// listTargets is GET /v1/dt/targets: paused targets are listed and counted.
func (a *api) listTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := a.d.Targets.List(p.AccountID)
	v := targetListView{Targets: make([]targetView, 0, len(list)), Count: len(list), MaxHandles: p.Sub.MaxHandles}
	for _, t := range list {
		v.Targets = append(v.Targets, targetView{ID: t.ID, ScreenName: t.ShownName(), DisplayName: t.DisplayName,
			SocialUserID: t.SocialUserID, IsActive: t.IsActive, CreatedAt: t.CreatedAt})
	}
	return 200, v, nil
}

type addTargetView struct {
	Handle       string  `json:"handle"`
	SocialUserID *string `json:"social_user_id"`
}

// addTarget is POST /v1/dt/targets (spec 2 state table).
func (a *api) addTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, m, err := httpkit.HandleBody(ctx)
	if err != nil {
		return 0, nil, err
	}
	typed := h // the key; the list shows the handle as the customer typed it
	if json.Unmarshal(m["handle"], &typed) != nil {
		typed = h
	}
	var socialID *string
	display := ""
	if e, ok := a.d.Dir.ByHandle(h); ok {
		if e.User.Suspended {
			return 0, nil, protocol.NotFound("handle not found or suspended")
		}
		id := e.User.ID
		socialID, display = &id, e.User.Name
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	t, err := a.d.Targets.Add(cctx, p.AccountID, typed, display, socialID, p.Sub.MaxHandles)
	switch {
	case errors.Is(err, targets.ErrExists):
		return 0, nil, protocol.Conflict("handle already tracked")
	case errors.Is(err, targets.ErrLimit):
		_, active := a.d.Targets.Counts(p.AccountID)
		return 0, nil, protocol.NewError(403, protocol.CodeHandleLimitReached,
			fmt.Sprintf("handle limit reached (%d/%d)", active, p.Sub.MaxHandles)).
			WithHint("remove a handle with DELETE /v1/dt/targets/{handle}, or upgrade your plan")
	case err != nil:
		return 0, nil, err
	}
	return 201, addTargetView{Handle: t.ShownName(), SocialUserID: t.SocialUserID}, nil
}

// removeTarget is DELETE /v1/dt/targets/{handle}.
func (a *api) removeTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(httpkit.PathValue(ctx, "handle"))
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err := a.d.Targets.Remove(cctx, p.AccountID, h)
	if errors.Is(err, targets.ErrNotTracked) || errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("handle not in your target list")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]string{"removed": h}, nil
}
