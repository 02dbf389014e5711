package trending

import (
	"log/slog"

	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Service is the Trending Alerts stream: the tap feeds it, sockets subscribe.
type Service struct {
	root *actor.RootContext
	pid  *actor.PID
}

// New spawns the stream actor under system.
func New(system *actor.ActorSystem, log *slog.Logger) *Service {
	pid := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return newStreamActor(log) }))
	return &Service{root: system.Root, pid: pid}
}

// Observe is the tap of trending observations.
func (s *Service) Observe(o *protocol.Observation) {
	if o.Trending != nil {
		s.root.Send(s.pid, &observed{obs: o.Trending})
	}
}

// Subscribe adds a socket; frames observed after the call reach it.
func (s *Service) Subscribe(sink Sink) { s.root.Send(s.pid, &subscribe{sink: sink}) }

// Unsubscribe removes a socket.
func (s *Service) Unsubscribe(sink Sink) { s.root.Send(s.pid, &unsubscribe{sink: sink}) }

// Stop stops the actor after what is already in its mailbox.
func (s *Service) Stop() { _ = s.root.PoisonFuture(s.pid).Wait() }

// PID is the actor's address (engine.Sync sends it a round trip).
func (s *Service) PID() *actor.PID { return s.pid }
