package tweetalerts

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/asynkron/protoactor-go/actor"
)

// Matcher is Tweet Alerts' intake: the singleton actor "tweetalerts" that
// runs the Dispatcher on each new post the handle actors tell it, off their
// goroutines. It holds no state of its own (the registry is shared memory).
type Matcher struct {
	ref *kit.Ref
}

// StartMatcher spawns the matcher over d.
func StartMatcher(ctx context.Context, k *kit.Kit, d *Dispatcher, log *slog.Logger) (*Matcher, error) {
	if log == nil {
		log = slog.Default()
	}
	ref, err := k.Spawn(ctx, "tweetalerts", func() actor.Actor { return &matcher{d: d, log: log} })
	if err != nil {
		return nil, err
	}
	return &Matcher{ref: ref}, nil
}

// Hear takes the handle actors' post-seen changes (a handle.Subscriber):
// only new posts are alerted. It never blocks.
func (m *Matcher) Hear(change any) {
	if c, ok := change.(*handle.PostSeen); ok && c.New {
		m.ref.Tell(c)
	}
}

// Stop lets the matcher finish what it was told, then stops it.
func (m *Matcher) Stop() { _ = m.ref.Stop() }

type matcher struct {
	d   *Dispatcher
	log *slog.Logger
}

func (a *matcher) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *handle.PostSeen:
		a.d.Dispatch(m.Obs.Post, m.FirstSeen)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.log.Warn("tweet alerts matcher: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}
