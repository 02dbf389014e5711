package main

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/edge"
)

// wireLookups builds the services of the lookups routes. It may register taps; the
// returned stop func (may be nil) runs at shutdown after the listener and
// the actors have stopped, before the store closes.
func wireLookups(ctx context.Context, e *engine, cfg *Config, taps *handle.Taps, log *slog.Logger) (edge.LookupDeps, func(), error) {
	return edge.LookupDeps{}, nil, nil
}
