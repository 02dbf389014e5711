package pumpfun

import (
	"context"

	"github.com/alertd/alertd/protocol"
)

// Jobs runs store writes off the hot path (the engine's writer).
type Jobs interface {
	Do(name string, f func(ctx context.Context) error)
}

// observed is a launchpad, callout or market_cap observation.
type observed struct {
	obs *protocol.Observation
}
