package handle

import (
	"strings"

	"github.com/alertd/alertd/protocol"
)

const handlePrefix = "handle/"

// RouteKey names the actor that owns an observation: one actor per handle for
// handle-bound kinds, and one feed actor per subject family for the others
// (all of a mint's launchpad, callout and market-cap observations stay in
// order in one actor).
func RouteKey(o *protocol.Observation) string {
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

// IsHandleKey reports whether key names a handle actor.
func IsHandleKey(key string) bool { return strings.HasPrefix(key, handlePrefix) }

// HandleKey is the routing key of handle h's actor.
func HandleKey(h string) string { return handlePrefix + h }
