package main

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/edge"
)

// wireSearch builds the services of the search routes. It may register taps; the
// returned stop func (may be nil) runs at shutdown after the listener and
// the actors have stopped, before the store closes.
func wireSearch(ctx context.Context, e *engine, cfg *Config, taps *handle.Taps, log *slog.Logger) (edge.SearchDeps, func(), error) {
	return edge.SearchDeps{}, nil, nil
}
