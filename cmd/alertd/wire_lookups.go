package main

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/lookups"
	"github.com/alertd/alertd/edge"
)

// wireLookups builds the services of the lookups routes. It may register taps; the
// returned stop func (may be nil) runs at shutdown after the listener and
// the actors have stopped, before the store closes.
//
// The lookups recorder hears user, follow, community, engagement and post
// observations through the taps and keeps what the per-handle endpoints and
// /social lookups read, through the store writer.
func wireLookups(_ context.Context, e *engine, _ *Config, taps *handle.Taps, log *slog.Logger) (edge.LookupDeps, func(), error) {
	rec := lookups.Start(e.system, e.store, e.writer, lookups.Options{Log: log.With("actor", "lookups")})
	rec.Register(taps)
	return edge.LookupDeps{Store: e.store}, rec.Stop, nil
}
