package handle

import "github.com/alertd/alertd/protocol"

// Kinds of entity actors: the kind half of an identity, as in protoactor's
// cluster identities.
const (
	// KindHandle: one actor per platform handle (lowercase), for
	// handle-bound kinds (posts, follows, communities, deletions).
	KindHandle = "handle"
	// KindUser: one actor per platform user id, for user snapshots.
	KindUser = "user"
	// KindFeed: one actor per family of observations that are not bound to
	// a handle (engagement, trending, mint).
	KindFeed = "feed"
)

// feedMint is the feed of a mint's launchpad, callout and market-cap
// observations: one actor keeps all of them in order.
const feedMint = "mint"

// Route names the actor that owns an observation: one actor per handle for
// handle-bound kinds, and one feed actor per subject family for the others.
//
// User snapshots go to one actor per platform user id instead: a rename moves
// a user from one handle to another, and only an owner keyed by id sees the
// old and the new snapshot in order.
func Route(o *protocol.Observation) (identity, kind string) {
	if o.Kind == protocol.KindUser {
		return o.User.ID, KindUser
	}
	if o.HandleBound() {
		return o.Key, KindHandle
	}
	switch o.Kind {
	case protocol.KindLaunchpad, protocol.KindCallout, protocol.KindMarketCap:
		return feedMint, KindFeed
	default:
		return o.Kind, KindFeed
	}
}
