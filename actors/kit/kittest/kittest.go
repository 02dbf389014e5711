// Package kittest helps tests of actors spawned through the kit.
package kittest

import (
	"log/slog"
	"testing"

	"github.com/alertd/alertd/actors/kit"
	"github.com/asynkron/protoactor-go/actor"
)

// Quiet returns a kit over an actor system of its own that logs nothing
// (opts may add to it), closed with the test: its singletons stop, then the
// system shuts down.
func Quiet(tb testing.TB, opts ...kit.Option) *kit.Kit {
	tb.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	k, err := kit.New(sys, append([]kit.Option{kit.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		k.Close()
		sys.Shutdown()
	})
	return k
}
