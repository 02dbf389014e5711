package trending

import "github.com/alertd/alertd/protocol"

// observed is a trending observation, sent by the trending tap.
type observed struct {
	obs *protocol.TrendingObs
}
