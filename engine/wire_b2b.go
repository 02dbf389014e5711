package engine

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/product/b2b"
	b2bapi "github.com/alertd/alertd/edge/api/b2b"
)

// wireB2B builds the services of the B2B lookups routes; the returned stop
// func (may be nil) runs at shutdown after the listener and the actors have
// stopped, before the store closes.
//
// The lookups recorder (singleton "b2b") hears the profile, following,
// follower, membership, engagement and post-seen changes (changes.go) and
// keeps what the per-handle endpoints and /social lookups read, through the
// store writer. It feeds no singleton; Sync flushes it after the barrier.
func wireB2B(_ context.Context, e *Engine, _ *Config, log *slog.Logger) (b2bapi.Deps, func(), error) {
	rec, err := b2b.Start(e.kit, e.store, e.writer, b2b.Options{Log: log.With("actor", "b2b")})
	if err != nil {
		return b2bapi.Deps{}, nil, err
	}
	e.products.b2b = rec
	e.syncRecorder = rec
	return b2bapi.Deps{Targets: e.targets, Dir: e.dir, Store: e.store}, rec.Stop, nil
}
