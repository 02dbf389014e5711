// Package b2b serves the B2B product's API
// (spec/2-b2b-realtime-and-ca-search.md, "Endpoints"): the monitoring routes
// under /v1/dt (status, target list, the per-handle data the b2b recorder
// keeps, trace records, the stored webhook setting), the /social/* lookups,
// and the B2B WebSockets (/v1/dt/realtime/ws, whose session authenticates
// with LOGIN, and the tweet-only /v1/dt/ws and /social/tweet/websocket).
// The sockets' sessions live in actors/session; this package only
// authenticates, takes a connection slot and hands the socket over.
package b2b

import (
	"context"
	"time"

	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
)

// Deps are what the B2B routes use.
type Deps struct {
	// Targets are the accounts' target lists; nil leaves the target and
	// per-handle routes out.
	Targets *targets.Registry
	// Dir knows the platform users (profiles, renames, /social/user).
	Dir *directory.Directory
	// Store reads what the b2b recorder keeps, the captured posts and the
	// trace records; nil leaves the lookups out.
	Store Store
}

// Store is what the lookups read (and the blacklist and webhook setting
// write) of the store.
type Store interface {
	ProfileHistory(ctx context.Context, userID string, limit, offset int) ([]persistence.ProfileCounts, error)
	ListFollowEdges(ctx context.Context, handle, relation string, limit, offset int) ([]persistence.FollowEdge, error)
	CountFollowEdges(ctx context.Context, handle, relation string) (int, error)
	SocialDiff(ctx context.Context, handle string, relations []string, change string, since time.Time, limit int) ([]persistence.SocialChange, error)
	HandleCommunities(ctx context.Context, handle string) ([]persistence.HandleCommunity, error)
	CommunityCatalog(ctx context.Context, search string, limit, offset int) ([]persistence.CatalogCommunity, error)
	LatestEngagement(ctx context.Context, tweetID string) (persistence.LatestEngagement, error)
	AddDTBlacklist(ctx context.Context, account, handle string, at time.Time) (added bool, err error)
	RemoveDTBlacklist(ctx context.Context, account, handle string) error
	DTBlacklist(ctx context.Context, account string) ([]string, error)
	PutDTWebhook(ctx context.Context, w persistence.DTWebhook) error
	DTWebhook(ctx context.Context, account string) (persistence.DTWebhook, error)
	PostByID(ctx context.Context, id string) (persistence.Post, error)
	RecentPosts(ctx context.Context, handle string, limit int) ([]persistence.Post, error)
	TraceWindow(ctx context.Context, handle string, from, to time.Time, limit int) ([]persistence.TraceRecord, error)
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are the B2B routes. /v1/dt/status and /social/user are always
// served; the others need the Deps their doc names, the sockets a transport.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	a := &api{k: k, d: d}
	dt, social := httpkit.FamilyB2B, httpkit.FamilySocial
	routes := []httpkit.Route{
		httpkit.GET("/v1/dt/status", k.Keyed(dt, a.status)),
		httpkit.GET("/social/user/{username}", k.Keyed(social, a.socialUser)),
	}
	if d.Targets != nil {
		routes = append(routes,
			httpkit.GET("/v1/dt/targets", k.Keyed(dt, a.listTargets)),
			httpkit.POST("/v1/dt/targets", k.Keyed(dt, a.addTarget)),
			httpkit.DELETE("/v1/dt/targets/{handle}", k.Keyed(dt, a.removeTarget)),
		)
	}
	if k.HasSockets() {
		routes = append(routes,
			httpkit.GET("/v1/dt/realtime/ws", a.realtimeSocket),
			httpkit.GET("/v1/dt/ws", a.tweetSocket),
			httpkit.GET("/social/tweet/websocket", a.tweetSocket),
		)
	}
	if d.Store == nil {
		return routes
	}
	if d.Targets != nil {
		routes = append(routes,
			httpkit.GET("/v1/dt/profile/{handle}", k.Keyed(dt, a.profile)),
			httpkit.GET("/v1/dt/profile/{handle}/history", k.Keyed(dt, a.profileHistory)),
			httpkit.GET("/v1/dt/tweets/{handle}", k.Keyed(dt, a.tweets)),
			httpkit.GET("/v1/dt/following/{handle}", k.Keyed(dt, a.following)),
			httpkit.GET("/v1/dt/followers/{handle}", k.Keyed(dt, a.followers)),
			httpkit.GET("/v1/dt/communities/{handle}", k.Keyed(dt, a.communities)),
			httpkit.GET("/v1/dt/social/diff/{handle}", k.Keyed(dt, a.socialDiff)),
			httpkit.GET("/v1/dt/events/{event_id}", k.Keyed(dt, a.event)),
		)
	}
	return append(routes,
		httpkit.GET("/v1/dt/webhook", k.Keyed(dt, a.getWebhook)),
		httpkit.PUT("/v1/dt/webhook", k.Keyed(dt, a.putWebhook)),
		httpkit.GET("/social/tweet/{tweetId}", k.Keyed(social, a.socialTweet)),
		httpkit.GET("/social/blacklist", k.Keyed(social, a.socialBlacklist)),
		httpkit.POST("/social/blacklist/{username}", k.Keyed(social, a.socialBlacklistAdd)),
		httpkit.DELETE("/social/blacklist/{username}", k.Keyed(social, a.socialBlacklistRemove)),
		httpkit.GET("/social/communities", k.Keyed(social, a.socialCommunities)),
	)
}
