package handle

import "github.com/alertd/alertd/protocol"

// Observe hands one validated observation to the actor that owns it. Only
// Router.Route sends it: the router counts it in the ingest backlog until
// the actor has handled it.
type Observe struct {
	Obs *protocol.Observation
}
