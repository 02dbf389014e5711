package trending

import (
	"context"
	"log/slog"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Service is the Trending Alerts stream: the tap feeds it; it publishes on
// the hub's Trending topic, which the sockets hear.
type Service struct{ ref *kit.Ref }

// New spawns the stream actor, the singleton "trending". It keeps nothing
// in the store: a restart starts it with an empty memory of what was
// streamed.
func New(ctx context.Context, k *kit.Kit, hub *delivery.Hub, log *slog.Logger) (*Service, error) {
	ref, err := k.Spawn(ctx, "trending", func() actor.Actor { return newStreamActor(hub, log) })
	if err != nil {
		return nil, err
	}
	return &Service{ref: ref}, nil
}

// Observe is the tap of trending observations.
func (s *Service) Observe(o *protocol.Observation) {
	if o.Trending != nil {
		s.ref.Tell(&observed{obs: o.Trending})
	}
}

// Stop stops the actor after what is already in its mailbox.
func (s *Service) Stop() { _ = s.ref.Stop() }
