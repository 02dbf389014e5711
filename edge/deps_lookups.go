package edge

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/alertd/alertd/persistence"
	"github.com/fasthttp/router"
)

// LookupDeps are the services the lookups routes use (wired in cmd/alertd).
type LookupDeps struct {
	// Store reads what the lookups recorder keeps (actors/lookups); nil
	// leaves the routes out.
	Store persistence.LookupStore
	// Secret makes a webhook signing secret (default: 32 random bytes in hex).
	Secret func() (string, error)
}

// lookupRoutes registers the lookups routes: the B2B per-handle data, the
// dt webhook setting and trace records under /v1/dt, and the /social
// lookups of posts, the blacklist and the community catalog.
func (s *Server) lookupRoutes(r *router.Router) {
	if s.deps.Lookups.Store == nil {
		return
	}
	if s.deps.Lookups.Secret == nil {
		s.deps.Lookups.Secret = lookupSecret
	}
	if s.deps.Targets != nil {
		r.GET("/v1/dt/profile/{handle}", s.wrap(FamilyB2B, s.dtProfile))
		r.GET("/v1/dt/profile/{handle}/history", s.wrap(FamilyB2B, s.dtProfileHistory))
		r.GET("/v1/dt/tweets/{handle}", s.wrap(FamilyB2B, s.dtTweets))
		r.GET("/v1/dt/following/{handle}", s.wrap(FamilyB2B, s.dtFollowing))
		r.GET("/v1/dt/followers/{handle}", s.wrap(FamilyB2B, s.dtFollowers))
		r.GET("/v1/dt/communities/{handle}", s.wrap(FamilyB2B, s.dtCommunities))
		r.GET("/v1/dt/social/diff/{handle}", s.wrap(FamilyB2B, s.dtSocialDiff))
		r.GET("/v1/dt/events/{event_id}", s.wrap(FamilyB2B, s.dtEvent))
	}
	r.GET("/v1/dt/webhook", s.wrap(FamilyB2B, s.dtGetWebhook))
	r.PUT("/v1/dt/webhook", s.wrap(FamilyB2B, s.dtPutWebhook))

	r.GET("/social/tweet/{tweetId}", s.wrap(FamilySocial, s.socialTweet))
	r.GET("/social/blacklist", s.wrap(FamilySocial, s.socialBlacklist))
	r.POST("/social/blacklist/{username}", s.wrap(FamilySocial, s.socialBlacklistAdd))
	r.DELETE("/social/blacklist/{username}", s.wrap(FamilySocial, s.socialBlacklistRemove))
	r.GET("/social/communities", s.wrap(FamilySocial, s.socialCommunities))
}

// lookupSecret is 32 random bytes in hex (64 characters).
func lookupSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
