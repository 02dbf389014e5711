package kit

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Loader is an actor whose state lives in the store. Load runs on the
// actor's own goroutine when it receives *actor.Started, before its first
// message: once when it is spawned, and again in the new instance that every
// restart produces. So a restarted actor works from what was persisted,
// never from a half-updated instance.
//
// Spawn returns the first Load's error. A later Load that fails is a failure
// like a panic: the supervisor restarts the actor after its backoff and Load
// runs again, while messages wait in the mailbox.
type Loader interface {
	Load(ctx context.Context) error
}

// cell wraps each instance of a singleton: it captures panics with their
// stack, runs Load on Started, and tells Spawn how the first start went.
type cell struct {
	inner       actor.Actor
	loadTimeout time.Duration
	ready       chan<- error // first instance only
	failed      bool         // the first Load failed: Spawn stops the actor
}

func (c *cell) Receive(ctx actor.Context) {
	defer CapturePanic()
	if c.failed {
		return
	}
	if _, ok := ctx.Message().(*actor.Started); ok {
		err := c.load()
		if c.ready != nil {
			c.ready <- err
			c.ready = nil
			if err != nil {
				c.failed = true
				return
			}
		} else if err != nil {
			panic(fmt.Errorf("reload %s: %w", ctx.Self().Id, err))
		}
	}
	if _, ok := ctx.Message().(*actor.Touch); ok {
		return // Barrier's round trip: protoactor answers it; the actor need not know
	}
	c.inner.Receive(ctx)
}

func (c *cell) load() error {
	l, ok := c.inner.(Loader)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.loadTimeout)
	defer cancel()
	return l.Load(ctx)
}
