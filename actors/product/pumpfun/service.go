package pumpfun

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/kit"
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
	// Hub carries wallet events and callouts to the sockets.
	Hub *delivery.Hub
	Now func() time.Time // default time.Now
	Log *slog.Logger
}

// Service is PumpFun: the target registry, the detector actor and the
// events list.
type Service struct {
	Targets *Registry
	store   Store
	ref     *kit.Ref
}

// New loads the targets and spawns the detector, the singleton "pumpfun".
// The targets are shared memory and outlive the detector; the callouts it
// follows for milestones are in memory only, so a restart forgets them.
func New(ctx context.Context, k *kit.Kit, c Config) (*Service, error) {
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
	ref, err := k.Spawn(ctx, "pumpfun", func() actor.Actor { return newDetector(reg, c.Store, c.Jobs, c.Hub, c.Now, c.Log) })
	if err != nil {
		return nil, err
	}
	return &Service{Targets: reg, store: c.Store, ref: ref}, nil
}

// Observe is the tap of launchpad, callout and market_cap observations.
func (s *Service) Observe(o *protocol.Observation) { s.ref.Tell(&observed{obs: o}) }

// Events returns the account's last wallet events, newest first.
func (s *Service) Events(ctx context.Context, account string) ([]persistence.PFEvent, error) {
	return s.store.ListPFEvents(ctx, account, EventsKept)
}

// Stop stops the detector after what is already in its mailbox.
func (s *Service) Stop() { _ = s.ref.Stop() }
