package engine

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/product/b2b"
	"github.com/alertd/alertd/edge"
)

// wireB2B builds the services of the B2B lookups routes. It may register taps; the
// returned stop func (may be nil) runs at shutdown after the listener and
// the actors have stopped, before the store closes.
//
// The lookups recorder hears user, follow, community, engagement and post
// observations through the taps and keeps what the per-handle endpoints and
// /social lookups read, through the store writer.
func wireB2B(_ context.Context, e *Engine, _ *Config, taps *handle.Taps, log *slog.Logger) (edge.LookupDeps, func(), error) {
	rec, err := b2b.Start(e.kit, e.store, e.writer, b2b.Options{Log: log.With("actor", "b2b")})
	if err != nil {
		return edge.LookupDeps{}, nil, err
	}
	rec.Register(taps)
	e.syncRecorder = rec
	return edge.LookupDeps{Store: e.store}, rec.Stop, nil
}
