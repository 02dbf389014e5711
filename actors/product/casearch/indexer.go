package casearch

import (
	"context"
	"fmt"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/asynkron/protoactor-go/actor"
)

// Indexer is CA Search's intake: the singleton actor "casearch" that feeds
// the service's index (and the stored terms) with the posts the handle
// actors tell it, off their goroutines. It holds no state of its own: the
// index is the service's shared memory and outlives a restart.
type Indexer struct {
	ref *kit.Ref
}

// StartIndexer spawns the indexer over sv.
func StartIndexer(ctx context.Context, k *kit.Kit, sv *Service) (*Indexer, error) {
	ref, err := k.Spawn(ctx, "casearch", func() actor.Actor { return &indexer{sv: sv} })
	if err != nil {
		return nil, err
	}
	return &Indexer{ref: ref}, nil
}

// Hear takes the handle actors' post-seen changes (a handle.Subscriber):
// every version of every post, new or not. It never blocks.
func (x *Indexer) Hear(change any) {
	if c, ok := change.(*handle.PostSeen); ok {
		x.ref.Tell(c)
	}
}

// Stop lets the indexer index what it was told, then stops it.
func (x *Indexer) Stop() { _ = x.ref.Stop() }

type indexer struct{ sv *Service }

func (a *indexer) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *handle.PostSeen:
		a.sv.Observe(m.Obs.Post)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.sv.log.Warn("casearch indexer: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}
