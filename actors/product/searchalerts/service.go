package searchalerts

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Config builds a Service.
type Config struct {
	Store QueryStore
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
	root    *actor.RootContext
	pid     *actor.PID
}

// New loads the queries and spawns the alert actor under system.
func New(ctx context.Context, system *actor.ActorSystem, c Config) (*Service, error) {
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
	pid := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return newAlertActor(reg, c.Now, c.AfterFunc, c.Log) }))
	return &Service{Queries: reg, now: c.Now, root: system.Root, pid: pid}, nil
}

// ObservePost is the post tap: a post is matched against every query here,
// on the caller's goroutine, and only matches go to the actor.
func (s *Service) ObservePost(o *protocol.Observation, _ int64, _ bool) {
	t := o.Post
	if t == nil || s.Queries.empty() {
		return
	}
	words := Tokenize(t.Text)
	if len(words) == 0 {
		return
	}
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	ids := s.Queries.match(set)
	if len(ids) == 0 {
		return
	}
	s.root.Send(s.pid, &matched{queries: ids, post: Post{TweetID: t.ID, Text: t.Text, ScreenName: t.Author.Handle,
		DisplayName: t.Author.Name}})
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
	s.root.Send(s.pid, &removed{query: id})
	return nil
}

// Subscribe adds a socket of account: it gets the alerts of the account's
// queries flushed from now on.
func (s *Service) Subscribe(account string, sink Sink) {
	s.root.Send(s.pid, &subscribe{account: account, sink: sink})
}

// Unsubscribe removes a socket.
func (s *Service) Unsubscribe(sink Sink) { s.root.Send(s.pid, &unsubscribe{sink: sink}) }

// Stop stops the actor (and its flush timers) after what is in its mailbox.
func (s *Service) Stop() { _ = s.root.PoisonFuture(s.pid).Wait() }

// PID is the actor's address (engine.Sync sends it a round trip).
func (s *Service) PID() *actor.PID { return s.pid }
