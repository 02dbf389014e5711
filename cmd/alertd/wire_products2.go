package main

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/edge"
)

// wireProducts2 builds the services of the products2 routes. It may register taps; the
// returned stop func (may be nil) runs at shutdown after the listener and
// the actors have stopped, before the store closes.
func wireProducts2(ctx context.Context, e *engine, cfg *Config, taps *handle.Taps, log *slog.Logger) (edge.ProductDeps2, func(), error) {
	return edge.ProductDeps2{}, nil, nil
}
