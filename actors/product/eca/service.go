package eca

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// Config builds a Service.
type Config struct {
	Store Store
	Jobs  Jobs
	// Expiry is how long an entry stays active; MatchesTTL how long a match
	// is listed (protocol.Timings ECAExpiry and ECAMatchesTTL).
	Expiry     time.Duration
	MatchesTTL time.Duration
	Now        func() time.Time // default time.Now
	Log        *slog.Logger
}

// Service is ECA: the watchlist, the detector actor and the matches list.
type Service struct {
	Watchlist *Watchlist
	store     Store
	ttl       time.Duration
	now       func() time.Time
	root      *actor.RootContext
	pid       *actor.PID
}

// New loads the watchlist and spawns the detector under system.
func New(ctx context.Context, system *actor.ActorSystem, c Config) (*Service, error) {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	wl := NewWatchlist(c.Store, c.Jobs, c.Expiry, c.Now, c.Log)
	if err := wl.Load(ctx); err != nil {
		return nil, err
	}
	pid := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		return newDetector(wl, c.Store, c.Jobs, c.Now, c.Log)
	}))
	return &Service{Watchlist: wl, store: c.Store, ttl: c.MatchesTTL, now: c.Now, root: system.Root, pid: pid}, nil
}

// Observe is the tap of launchpad observations.
func (s *Service) Observe(o *protocol.Observation) {
	if o.Launchpad != nil && o.Launchpad.EventType == protocol.LaunchTokenLaunched {
		s.root.Send(s.pid, &observed{launch: o.Launchpad})
	}
}

// Subscribe adds a socket of account: it gets the matches of the account's
// entries from now on.
func (s *Service) Subscribe(account string, sink Sink) {
	s.root.Send(s.pid, &subscribe{account: account, sink: sink})
}

// Unsubscribe removes a socket.
func (s *Service) Unsubscribe(sink Sink) { s.root.Send(s.pid, &unsubscribe{sink: sink}) }

// Matches returns the match data of the account's matches of the last
// MatchesTTL, newest first.
func (s *Service) Matches(ctx context.Context, account string) ([]json.RawMessage, error) {
	list, err := s.store.ListECAMatches(ctx, account, s.now().Add(-s.ttl))
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(list))
	for i, m := range list {
		out[i] = m.Data
	}
	return out, nil
}

// TotalMatches is the number of matches the account ever had.
func (s *Service) TotalMatches(ctx context.Context, account string) (int, error) {
	return s.store.CountECAMatches(ctx, account)
}

// Stop stops the detector after what is already in its mailbox.
func (s *Service) Stop() { _ = s.root.PoisonFuture(s.pid).Wait() }

// PID is the actor's address (engine.Sync sends it a round trip).
func (s *Service) PID() *actor.PID { return s.pid }
