package pumpfun

import (
	"io"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
)

// quietSystem is an actor system that logs nothing.
func quietSystem() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
}
