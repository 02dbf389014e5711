package main

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/edge"
)

// wireProducts builds the services of the products routes. It may register taps; the
// returned stop func (may be nil) runs at shutdown after the listener and
// the actors have stopped, before the store closes.
func wireProducts(ctx context.Context, e *engine, cfg *Config, taps *handle.Taps, log *slog.Logger) (edge.ProductDeps, func(), error) {
	return edge.ProductDeps{}, nil, nil
}
