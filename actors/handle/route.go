package handle

import (
	"strings"

	"github.com/alertd/alertd/protocol"
)

const (
	handlePrefix = "handle/"
	userPrefix   = "user/"
)

// RouteKey names the actor that owns an observation: one actor per handle for
// handle-bound kinds, and one feed actor per subject family for the others
// (all of a mint's launchpad, callout and market-cap observations stay in
// order in one actor).
//
// User snapshots go to one actor per platform user id instead: a rename moves
// a user from one handle to another, and only an owner keyed by id sees the
// old and the new snapshot in order.
func RouteKey(o *protocol.Observation) string {
	if o.Kind == protocol.KindUser {
		return userPrefix + o.User.ID
	}
	if o.HandleBound() {
		return handlePrefix + o.Key
	}
	switch o.Kind {
	case protocol.KindLaunchpad, protocol.KindCallout, protocol.KindMarketCap:
		return "feed/mint"
	default:
		return "feed/" + o.Kind
	}
}

// IsUserKey reports whether key names a user actor.
func IsUserKey(key string) bool { return strings.HasPrefix(key, userPrefix) }

// IsHandleKey reports whether key names a handle actor.
func IsHandleKey(key string) bool { return strings.HasPrefix(key, handlePrefix) }

// HandleKey is the routing key of handle h's actor.
func HandleKey(h string) string { return handlePrefix + h }
