package eca

import (
	"io"
	"log/slog"
	"testing"

	"github.com/alertd/alertd/actors/kit"
	"github.com/asynkron/protoactor-go/actor"
)

// quietSystem is an actor system that logs nothing.
func quietSystem() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
}

// quietKit is a kit over a quiet system, closed with the test.
func quietKit(t *testing.T) *kit.Kit {
	t.Helper()
	sys := quietSystem()
	k, err := kit.New(sys, kit.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		k.Close()
		sys.Shutdown()
	})
	return k
}
