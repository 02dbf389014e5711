package b2b

import (
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

type followEdgeView struct {
	TargetID         string    `json:"target_id"`
	TargetScreenName string    `json:"target_screen_name"`
	IsCurrent        bool      `json:"is_current"`
	FirstSeenAt      time.Time `json:"first_seen_at"`
	LastSeenAt       time.Time `json:"last_seen_at"`
}

type followingView struct {
	Following []followEdgeView `json:"following"`
	Count     int              `json:"count"`
	Total     int              `json:"total"`
}

// followerView wraps the followers list under the singular `follower`, as
// spec 2 names it.
type followerView struct {
	Follower []followEdgeView `json:"follower"`
	Count    int              `json:"count"`
	Total    int              `json:"total"`
}

// following is GET /v1/dt/following/{handle} (module follows).
func (a *api) following(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list, total, err := a.followEdges(ctx, p, protocol.ModuleFollows, persistence.RelationFollowing)
	if err != nil {
		return 0, nil, err
	}
	return 200, followingView{Following: list, Count: len(list), Total: total}, nil
}

// followers is GET /v1/dt/followers/{handle} (module followers).
func (a *api) followers(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list, total, err := a.followEdges(ctx, p, protocol.ModuleFollowers, persistence.RelationFollower)
	if err != nil {
		return 0, nil, err
	}
	return 200, followerView{Follower: list, Count: len(list), Total: total}, nil
}

// followEdges reads one page of edges (current first, newest first) and the
// number of current edges.
func (a *api) followEdges(ctx *fasthttp.RequestCtx, p *account.Principal, module, relation string) ([]followEdgeView, int, error) {
	t, err := a.listedTarget(ctx, p, module)
	if err != nil {
		return nil, 0, err
	}
	limit, offset, err := httpkit.Page(ctx, 100, 500)
	if err != nil {
		return nil, 0, err
	}
	h := a.dataHandle(t)
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	edges, err := a.d.Store.ListFollowEdges(cctx, h, relation, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	total, err := a.d.Store.CountFollowEdges(cctx, h, relation)
	if err != nil {
		return nil, 0, err
	}
	out := make([]followEdgeView, 0, len(edges))
	for _, e := range edges {
		out = append(out, followEdgeView{TargetID: e.TargetID, TargetScreenName: e.TargetScreenName, IsCurrent: e.IsCurrent,
			FirstSeenAt: e.FirstSeenAt, LastSeenAt: e.LastSeenAt})
	}
	return out, total, nil
}

type communityMembershipView struct {
	CommunityID       string    `json:"community_id"`
	CommunityName     string    `json:"community_name"`
	MemberCount       int64     `json:"member_count"`
	CreatorScreenName string    `json:"creator_screen_name"`
	IsCurrent         bool      `json:"is_current"`
	FirstSeenAt       time.Time `json:"first_seen_at"`
	LastSeenAt        time.Time `json:"last_seen_at"`
}

type communityMembershipsView struct {
	Communities []communityMembershipView `json:"communities"`
	Count       int                       `json:"count"`
}

// communities is GET /v1/dt/communities/{handle}: every membership seen in
// the handle's community snapshots, current first.
func (a *api) communities(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	t, err := a.listedTarget(ctx, p, "")
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	list, err := a.d.Store.HandleCommunities(cctx, a.dataHandle(t))
	if err != nil {
		return 0, nil, err
	}
	v := communityMembershipsView{Communities: make([]communityMembershipView, 0, len(list)), Count: len(list)}
	for _, c := range list {
		v.Communities = append(v.Communities, communityMembershipView{CommunityID: c.CommunityID, CommunityName: c.CommunityName,
			MemberCount: c.MemberCount, CreatorScreenName: c.CreatorScreenName, IsCurrent: c.IsCurrent,
			FirstSeenAt: c.FirstSeenAt, LastSeenAt: c.LastSeenAt})
	}
	return 200, v, nil
}

type socialChangeView struct {
	TargetID         string    `json:"target_id"`
	TargetScreenName string    `json:"target_screen_name"`
	Relation         string    `json:"relation"`
	Change           string    `json:"change"`
	ChangedAt        time.Time `json:"changed_at"`
}

type socialDiffView struct {
	Added        []socialChangeView `json:"added"`
	Removed      []socialChangeView `json:"removed"`
	AddedCount   int                `json:"added_count"`
	RemovedCount int                `json:"removed_count"`
}

// socialDiffMax caps each list of the social diff (spec 2 "Limits").
const socialDiffMax = 100

// socialDiff is GET /v1/dt/social/diff/{handle} (module follows): the
// follow edges added and removed in the trailing 7 days, newest first. New
// followers are included when the plan also carries followers.
func (a *api) socialDiff(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	t, err := a.listedTarget(ctx, p, protocol.ModuleFollows)
	if err != nil {
		return 0, nil, err
	}
	relations := []string{persistence.RelationFollowing}
	if hasModule(p, protocol.ModuleFollowers) {
		relations = append(relations, persistence.RelationFollower)
	}
	window := a.k.Timings.SocialDiffWindow
	if window <= 0 {
		window = protocol.DefaultTimings().SocialDiffWindow
	}
	since, h := a.k.Now().Add(-window), a.dataHandle(t)
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	var v socialDiffView
	for _, c := range []struct {
		change string
		dst    *[]socialChangeView
	}{{persistence.ChangeAdded, &v.Added}, {persistence.ChangeRemoved, &v.Removed}} {
		list, err := a.d.Store.SocialDiff(cctx, h, relations, c.change, since, socialDiffMax)
		if err != nil {
			return 0, nil, err
		}
		*c.dst = make([]socialChangeView, 0, len(list))
		for _, x := range list {
			*c.dst = append(*c.dst, socialChangeView{TargetID: x.TargetID, TargetScreenName: x.TargetScreenName,
				Relation: x.Relation, Change: x.Change, ChangedAt: x.ChangedAt})
		}
	}
	v.AddedCount, v.RemovedCount = len(v.Added), len(v.Removed)
	return 200, v, nil
}
