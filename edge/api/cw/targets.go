package cw

import (
	"errors"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// communityView is one community a watched handle belongs to.
type communityView struct {
	CommunityID   string `json:"community_id"`
	CommunityName string `json:"community_name"`
	MemberCount   int64  `json:"member_count"`
	// JoinedAt is null for memberships found at the sync.
	JoinedAt *string `json:"joined_at"`
}

// targetView is one watched handle.
type targetView struct {
	Handle       string  `json:"handle"`
	SocialUserID *string `json:"social_user_id"`
	NewFollowers bool    `json:"new_followers"`
	AddedAt      string  `json:"added_at"`
	// Synced is false until the first community snapshot after the add (the
	// one-time sync); Communities are the memberships known since.
	Synced      bool            `json:"synced"`
	Communities []communityView `json:"communities"`
}

type targetListView struct {
	Targets    []targetView `json:"targets"`
	Count      int          `json:"count"`
	MaxHandles int          `json:"max_handles"`
}

func (a *api) targetView(it watchlist.Item[cw.TargetOptions], st *cw.HandleView) targetView {
	v := targetView{Handle: it.Name, SocialUserID: httpkit.UserID(a.d.Dir, it.Name), NewFollowers: it.Opts.NewFollowers,
		AddedAt: httpkit.WatchTime(it.AddedAt), Communities: []communityView{}}
	if st != nil {
		v.Synced = st.Synced
		for _, m := range st.Communities {
			c := communityView{CommunityID: m.ID, CommunityName: m.Name, MemberCount: m.MemberCount}
			if m.JoinedAt > 0 {
				at := watchlist.ISOTime(m.JoinedAt)
				c.JoinedAt = &at
			}
			v.Communities = append(v.Communities, c)
		}
	}
	return v
}

// listTargets is GET /v1/cw/targets.
func (a *api) listTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &a.d
	items := d.Registry.Items(p.AccountID)
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Name
	}
	states, err := d.Tracker.States(names)
	if err != nil {
		return 0, nil, err
	}
	v := targetListView{Targets: make([]targetView, 0, len(items)), Count: len(items), MaxHandles: httpkit.HandleLimit(p)}
	for _, it := range items {
		var st *cw.HandleView
		if x, ok := states[it.Name]; ok {
			st = &x
		}
		v.Targets = append(v.Targets, a.targetView(it, st))
	}
	return 200, v, nil
}

// newFollowers reads the optional `new_followers` switch of a body.
func newFollowers(m map[string]json.RawMessage, required bool) (bool, bool, error) {
	raw, ok := m["new_followers"]
	if !ok {
		if required {
			return false, false, httpkit.MissingField("new_followers")
		}
		return false, false, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, false, protocol.BadRequest("new_followers must be a boolean")
	}
	return b, true, nil
}

// addTarget is POST /v1/cw/targets: `handle` required, `new_followers`
// optional (the per-handle digest switch).
func (a *api) addTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, m, err := httpkit.HandleBody(ctx)
	if err != nil {
		return 0, nil, err
	}
	digest, _, err := newFollowers(m, false)
	if err != nil {
		return 0, nil, err
	}
	d := &a.d
	max := httpkit.HandleLimit(p)
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	it, err := d.Registry.Add(cctx, p.AccountID, h, cw.TargetOptions{NewFollowers: digest}, max)
	switch {
	case errors.Is(err, watchlist.ErrExists):
		return 0, nil, protocol.Conflict("handle already watched")
	case errors.Is(err, watchlist.ErrLimit):
		return 0, nil, httpkit.HandleLimitError("cw", d.Registry.Count(p.AccountID), max)
	case err != nil:
		return 0, nil, err
	}
	// The one-time sync is made (or awaited) before the answer, so a socket
	// opened after it receives the sync.
	if err := d.Tracker.Added(p.AccountID, it.Name); err != nil {
		return 0, nil, err
	}
	states, err := d.Tracker.States([]string{it.Name})
	if err != nil {
		return 0, nil, err
	}
	var st *cw.HandleView
	if x, ok := states[it.Name]; ok {
		st = &x
	}
	return 201, a.targetView(it, st), nil
}

// patchTarget is PATCH /v1/cw/targets/{handle} (ours): `new_followers`
// switches the handle's new-follower digest, which spec 3 leaves to the bot.
func (a *api) patchTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(httpkit.PathValue(ctx, "handle"))
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	digest, _, err := newFollowers(m, true)
	if err != nil {
		return 0, nil, err
	}
	d := &a.d
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	it, err := d.Registry.SetOptions(cctx, p.AccountID, h, cw.TargetOptions{NewFollowers: digest})
	if errors.Is(err, watchlist.ErrNotWatched) {
		return 0, nil, protocol.NotFound("handle not watched")
	}
	if err != nil {
		return 0, nil, err
	}
	states, err := d.Tracker.States([]string{h})
	if err != nil {
		return 0, nil, err
	}
	var st *cw.HandleView
	if x, ok := states[h]; ok {
		st = &x
	}
	return 200, a.targetView(it, st), nil
}

// removeTarget is DELETE /v1/cw/targets/{handle}: 404 if not watched.
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
	d.Tracker.Unwatch(h)
	return 200, httpkit.RemovedHandle{Removed: h, Count: d.Registry.Count(p.AccountID), Limit: httpkit.HandleLimit(p)}, nil
}
