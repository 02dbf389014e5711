package eca

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// Config builds a Service.
type Config struct {
	Store Store
	Jobs  Jobs
	// Hub carries matches to the account's sockets.
	Hub *delivery.Hub
	// Expiry is how long an entry stays active; MatchesTTL how long a match
	// is listed (protocol.Timings ECAExpiry and ECAMatchesTTL).
	Expiry     time.Duration
	MatchesTTL time.Duration
	Now        func() time.Time // default time.Now
	Log        *slog.Logger
	// RecordFirst publishes a match only once the store recorded it: in a
	// cluster, a launch ingested on two nodes, or two launches matching one
	// entry before the other node heard of the first match, may both match
	// it, and the store's one transition of the entry from active to
	// matched decides which is sent. Off, a match is published at once (one
	// node: its watchlist alone decides).
	RecordFirst bool
}

// Service is ECA: the watchlist, the detector actor and the matches list.
type Service struct {
	Watchlist *Watchlist
	store     Store
	ttl       time.Duration
	now       func() time.Time
	ref       *kit.Ref
}

// New loads the watchlist and spawns the detector, the singleton "eca". The
// watchlist is shared memory and outlives the detector.
func New(ctx context.Context, k *kit.Kit, c Config) (*Service, error) {
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
	ref, err := k.Spawn(ctx, "eca", func() actor.Actor { return newDetector(wl, c.Store, c.Jobs, c.Hub, c.Now, c.Log, c.RecordFirst) })
	if err != nil {
		return nil, err
	}
	return &Service{Watchlist: wl, store: c.Store, ttl: c.MatchesTTL, now: c.Now, ref: ref}, nil
}

// Observe is the tap of launchpad observations.
func (s *Service) Observe(o *protocol.Observation) {
	if o.Launchpad != nil && o.Launchpad.EventType == protocol.LaunchTokenLaunched {
		s.ref.Tell(&observed{launch: o.Launchpad})
	}
}

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
func (s *Service) Stop() { _ = s.ref.Stop() }
