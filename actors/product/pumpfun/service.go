package pumpfun

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Store is what the PumpFun service needs of the store.
type Store interface {
	TargetStore
	EventStore
	ListPFEvents(ctx context.Context, account string, limit int) ([]persistence.PFEvent, error)
}

// Config builds a Service.
type Config struct {
	Store Store
	Jobs  Jobs
	Now   func() time.Time // default time.Now
	Log   *slog.Logger
}

// Service is PumpFun: the target registry, the detector actor and the
// events list.
type Service struct {
	Targets *Registry
	store   Store
	root    *actor.RootContext
	pid     *actor.PID
}

// New loads the targets and spawns the detector under system.
func New(ctx context.Context, system *actor.ActorSystem, c Config) (*Service, error) {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	reg := NewRegistry(c.Store)
	if err := reg.Load(ctx); err != nil {
		return nil, err
	}
	pid := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		return newDetector(reg, c.Store, c.Jobs, c.Now, c.Log)
	}))
	return &Service{Targets: reg, store: c.Store, root: system.Root, pid: pid}, nil
}

// Observe is the tap of launchpad, callout and market_cap observations.
func (s *Service) Observe(o *protocol.Observation) { s.root.Send(s.pid, &observed{obs: o}) }

// Subscribe adds a socket of account: its wallets and callers are read now,
// at connect (spec 3: reconnect after changing targets).
func (s *Service) Subscribe(account string, sink Sink) {
	s.root.Send(s.pid, &subscribe{sink: sink, account: account, wallets: s.Targets.filter(account)})
}

// Unsubscribe removes a socket.
func (s *Service) Unsubscribe(sink Sink) { s.root.Send(s.pid, &unsubscribe{sink: sink}) }

// Events returns the account's last wallet events, newest first.
func (s *Service) Events(ctx context.Context, account string) ([]persistence.PFEvent, error) {
	return s.store.ListPFEvents(ctx, account, EventsKept)
}

// Stop stops the detector after what is already in its mailbox.
func (s *Service) Stop() { _ = s.root.PoisonFuture(s.pid).Wait() }

// PID is the actor's address (engine.Sync sends it a round trip).
func (s *Service) PID() *actor.PID { return s.pid }
