package edge

import (
	"errors"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// cwRoutes are Community Watch's routes (spec 3).
func (s *Server) cwRoutes(r *router.Router) {
	f := ProductFamily(protocol.ProductCW)
	d := &s.deps.Products
	r.GET("/v1/cw/targets", s.wrap(f, s.cwListTargets))
	r.POST("/v1/cw/targets", s.wrap(f, s.cwAddTarget))
	r.PATCH("/v1/cw/targets/{handle}", s.wrap(f, s.cwPatchTarget))
	r.DELETE("/v1/cw/targets/{handle}", s.wrap(f, s.cwRemoveTarget))
	r.GET("/v1/cw/settings", s.wrap(f, s.cwGetSettings))
	r.PATCH("/v1/cw/settings", s.wrap(f, s.cwPatchSettings))
	r.GET("/v1/cw/status", s.wrap(f, s.cwStatus))
	s.watchWebhookRoutes(r, protocol.ProductCW, d.CW)
	if s.ws != nil {
		r.GET("/v1/cw/ws", s.productSocket(protocol.ProductCW, accountScope(protocol.ProductCW, d.CW.Names)))
	}
}

// cwCommunityView is one community a watched handle belongs to.
type cwCommunityView struct {
	CommunityID   string `json:"community_id"`
	CommunityName string `json:"community_name"`
	MemberCount   int64  `json:"member_count"`
	// JoinedAt is null for memberships found at the sync.
	JoinedAt *string `json:"joined_at"`
}

// cwTargetView is one watched handle.
type cwTargetView struct {
	Handle       string  `json:"handle"`
	SocialUserID *string `json:"social_user_id"`
	NewFollowers bool    `json:"new_followers"`
	AddedAt      string  `json:"added_at"`
	// Synced is false until the first community snapshot after the add (the
	// one-time sync); Communities are the memberships known since.
	Synced      bool              `json:"synced"`
	Communities []cwCommunityView `json:"communities"`
}

type cwTargetListView struct {
	Targets    []cwTargetView `json:"targets"`
	Count      int            `json:"count"`
	MaxHandles int            `json:"max_handles"`
}

func (s *Server) cwTargetView(it watchlist.Item[cw.TargetOptions], st *cw.HandleView) cwTargetView {
	v := cwTargetView{Handle: it.Name, SocialUserID: s.watchSocialID(it.Name), NewFollowers: it.Opts.NewFollowers,
		AddedAt: watchISO(it.AddedAt), Communities: []cwCommunityView{}}
	if st != nil {
		v.Synced = st.Synced
		for _, m := range st.Communities {
			c := cwCommunityView{CommunityID: m.ID, CommunityName: m.Name, MemberCount: m.MemberCount}
			if m.JoinedAt > 0 {
				at := watchlist.ISOTime(m.JoinedAt)
				c.JoinedAt = &at
			}
			v.Communities = append(v.Communities, c)
		}
	}
	return v
}

// cwListTargets is GET /v1/cw/targets.
func (s *Server) cwListTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &s.deps.Products
	items := d.CW.Items(p.AccountID)
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Name
	}
	states, err := d.CWTracker.States(names)
	if err != nil {
		return 0, nil, err
	}
	v := cwTargetListView{Targets: make([]cwTargetView, 0, len(items)), Count: len(items), MaxHandles: handleLimit(p)}
	for _, it := range items {
		var st *cw.HandleView
		if x, ok := states[it.Name]; ok {
			st = &x
		}
		v.Targets = append(v.Targets, s.cwTargetView(it, st))
	}
	return 200, v, nil
}

// cwNewFollowers reads the optional `new_followers` switch of a body.
func cwNewFollowers(m map[string]json.RawMessage, required bool) (bool, bool, error) {
	raw, ok := m["new_followers"]
	if !ok {
		if required {
			return false, false, errMissingField("new_followers")
		}
		return false, false, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, false, protocol.BadRequest("new_followers must be a boolean")
	}
	return b, true, nil
}

// cwAddTarget is POST /v1/cw/targets: `handle` required, `new_followers`
// optional (the per-handle digest switch).
func (s *Server) cwAddTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, m, err := watchHandleBody(ctx)
	if err != nil {
		return 0, nil, err
	}
	digest, _, err := cwNewFollowers(m, false)
	if err != nil {
		return 0, nil, err
	}
	d := &s.deps.Products
	max := handleLimit(p)
	cctx, cancel := watchCtx()
	defer cancel()
	it, err := d.CW.Add(cctx, p.AccountID, h, cw.TargetOptions{NewFollowers: digest}, max)
	switch {
	case errors.Is(err, watchlist.ErrExists):
		return 0, nil, protocol.Conflict("handle already watched")
	case errors.Is(err, watchlist.ErrLimit):
		return 0, nil, watchLimitError("cw", d.CW.Count(p.AccountID), max)
	case err != nil:
		return 0, nil, err
	}
	return 201, s.cwTargetView(it, nil), nil
}

// cwPatchTarget is PATCH /v1/cw/targets/{handle} (ours): `new_followers`
// switches the handle's new-follower digest, which spec 3 leaves to the bot.
func (s *Server) cwPatchTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(pathValue(ctx, "handle"))
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	digest, _, err := cwNewFollowers(m, true)
	if err != nil {
		return 0, nil, err
	}
	d := &s.deps.Products
	cctx, cancel := watchCtx()
	defer cancel()
	it, err := d.CW.SetOptions(cctx, p.AccountID, h, cw.TargetOptions{NewFollowers: digest})
	if errors.Is(err, watchlist.ErrNotWatched) {
		return 0, nil, protocol.NotFound("handle not watched")
	}
	if err != nil {
		return 0, nil, err
	}
	states, err := d.CWTracker.States([]string{h})
	if err != nil {
		return 0, nil, err
	}
	var st *cw.HandleView
	if x, ok := states[h]; ok {
		st = &x
	}
	return 200, s.cwTargetView(it, st), nil
}

// cwRemoveTarget is DELETE /v1/cw/targets/{handle}: 404 if not watched.
func (s *Server) cwRemoveTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(pathValue(ctx, "handle"))
	d := &s.deps.Products
	cctx, cancel := watchCtx()
	defer cancel()
	err := d.CW.Remove(cctx, p.AccountID, h)
	if errors.Is(err, watchlist.ErrNotWatched) {
		return 0, nil, protocol.NotFound("handle not watched")
	}
	if err != nil {
		return 0, nil, err
	}
	d.CWTracker.Unwatch(h)
	return 200, watchRemovedView{Removed: h, Count: d.CW.Count(p.AccountID), Limit: handleLimit(p)}, nil
}
