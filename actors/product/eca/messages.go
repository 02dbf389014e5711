package eca

import "github.com/alertd/alertd/protocol"

// observed is a launchpad observation.
type observed struct{ launch *protocol.LaunchpadObs }
