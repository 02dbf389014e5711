package trending

import (
	"log/slog"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Service is the Trending Alerts stream: the tap feeds it; it publishes on
// the hub's Trending topic, which the sockets hear.
type Service struct {
	root *actor.RootContext
	pid  *actor.PID
}

// New spawns the stream actor under system.
func New(system *actor.ActorSystem, hub *delivery.Hub, log *slog.Logger) *Service {
	pid := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return newStreamActor(hub, log) }))
	return &Service{root: system.Root, pid: pid}
}

// Observe is the tap of trending observations.
func (s *Service) Observe(o *protocol.Observation) {
	if o.Trending != nil {
		s.root.Send(s.pid, &observed{obs: o.Trending})
	}
}

// Stop stops the actor after what is already in its mailbox.
func (s *Service) Stop() { _ = s.root.PoisonFuture(s.pid).Wait() }
