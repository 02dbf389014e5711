package handle

import "github.com/alertd/alertd/protocol"

// Observe hands one validated observation to the actor that owns its key.
type Observe struct {
	Obs *protocol.Observation
}
