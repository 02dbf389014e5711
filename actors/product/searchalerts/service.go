package searchalerts

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// Config builds a Service.
type Config struct {
	Store QueryStore
	// Hub carries the flushed alerts to the account's sockets.
	Hub *delivery.Hub
	// Intervals are protocol.Timings.SAIntervals.
	Intervals []time.Duration
	Now       func() time.Time // default time.Now
	AfterFunc AfterFunc        // default time.AfterFunc
	Log       *slog.Logger
}

// Service is Search Alerts: the query registry and the alert actor.
type Service struct {
	Queries *Registry
	now     func() time.Time
	ref     *kit.Ref
}

// New loads the queries and spawns the alert actor, the singleton
// "searchalerts". The queries are shared memory and outlive the actor; the
// matches it collected for the next flush are in memory only, so a restart
// drops them.
func New(ctx context.Context, k *kit.Kit, c Config) (*Service, error) {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.AfterFunc == nil {
		c.AfterFunc = realAfterFunc
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	reg := NewRegistry(c.Store, c.Intervals)
	if err := reg.Load(ctx); err != nil {
		return nil, err
	}
	ref, err := k.Spawn(ctx, "searchalerts", func() actor.Actor { return newAlertActor(reg, c.Hub, c.Now, c.AfterFunc, c.Log) })
	if err != nil {
		return nil, err
	}
	return &Service{Queries: reg, now: c.Now, ref: ref}, nil
}

// Hear takes the handle actors' post-seen changes (a handle.Subscriber):
// while any query is saved, every post goes to the actor, which matches it
// against the queries. It never blocks.
func (s *Service) Hear(change any) {
	if c, ok := change.(*handle.PostSeen); ok && !s.Queries.empty() {
		s.ref.Tell(c)
	}
}

// Create saves a query (see Registry.Create).
func (s *Service) Create(ctx context.Context, account, text, interval string) (persistence.SAQuery, error) {
	return s.Queries.Create(ctx, account, text, interval, s.now())
}

// Remove deletes a query and drops what it collected.
func (s *Service) Remove(ctx context.Context, account string, id int64) error {
	if err := s.Queries.Remove(ctx, account, id); err != nil {
		return err
	}
	s.ref.Tell(&removed{query: id})
	return nil
}

// Stop stops the actor (and its flush timers) after what is in its mailbox.
func (s *Service) Stop() { _ = s.ref.Stop() }
