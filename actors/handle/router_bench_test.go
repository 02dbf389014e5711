package handle

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"

	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// discardStore takes the writer's batches and drops them, so the benchmarks
// measure routing and the actors, not SQLite.
type discardStore struct {
	persistence.DirectoryStore
	persistence.ObservationStore
	persistence.TraceStore
}

func (discardStore) UpsertUsers(context.Context, []persistence.User) error        { return nil }
func (discardStore) SavePosts(context.Context, []persistence.Post) error          { return nil }
func (discardStore) PutSnapshots(context.Context, []persistence.Snapshot) error   { return nil }
func (discardStore) AppendTrace(context.Context, []persistence.TraceRecord) error { return nil }
func (discardStore) AppendObservations(context.Context, []persistence.ObservationRecord) error {
	return nil
}

// benchRouter routes pre-decoded post_deleted observations (the lightest
// handle-bound kind) of n handles: routing, mailbox and actor, no store.
func benchRouter(b *testing.B, n int) (*Router, []*protocol.Observation, func()) {
	return benchRouterSubs(b, n, nil)
}

func benchRouterSubs(b *testing.B, n int, subs *Subscriptions) (*Router, []*protocol.Observation, func()) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := writer.New(discardStore{}, writer.Options{Logger: log})
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	r := NewRouter(sys, &Deps{Dir: directory.New(), Writer: w, Log: log, Timings: protocol.DefaultTimings(), Subs: subs})
	obs := make([]*protocol.Observation, n)
	for i := range obs {
		o, err := protocol.DecodeObservation([]byte(fmt.Sprintf(`{"kind":"post_deleted","handle":"h%d","tweet_id":"1"}`, i)), 1)
		if err != nil {
			b.Fatal(err)
		}
		obs[i] = o
	}
	for _, o := range obs { // every actor exists before the clock starts
		r.Route(o)
	}
	if subs == nil {
		drain(r)
	}
	return r, obs, func() {
		r.Stop()
		w.Stop()
		sys.Shutdown()
	}
}

// drain waits until every routed observation was handled.
func drain(r *Router) {
	for r.Backlog() != 0 {
		runtime.Gosched()
	}
}

// BenchmarkRoute is ingest's path into the actors: look up the owner of an
// observation among 1,000 live handle actors and post it; the clock runs
// until every actor has handled its share.
func BenchmarkRoute(b *testing.B) {
	r, obs, stop := benchRouter(b, 1000)
	defer stop()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Route(obs[i%len(obs)])
	}
	drain(r)
}

// BenchmarkRouteParallel is BenchmarkRoute from concurrent ingest requests.
func BenchmarkRouteParallel(b *testing.B) {
	r, obs, stop := benchRouter(b, 1000)
	defer stop()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r.Route(obs[i%len(obs)])
			i += 7
		}
	})
	drain(r)
}

// benchBlocked routes to 1,000 actors that a subscriber holds busy, so that the
// clock sees the router alone (finding the owner, counting, posting to its
// mailbox) and no actor work; they drain after the clock stops.
func benchBlocked(b *testing.B, route func(r *Router, obs []*protocol.Observation)) {
	release := make(chan struct{})
	r, obs, stop := benchRouterSubs(b, 1000, onDeleted(func(*protocol.Observation) { <-release }))
	defer stop()
	b.ReportAllocs()
	b.ResetTimer()
	route(r, obs)
	b.StopTimer()
	close(release)
	drain(r)
}

// BenchmarkRouteEnqueue is the routing cost of one observation.
func BenchmarkRouteEnqueue(b *testing.B) {
	benchBlocked(b, func(r *Router, obs []*protocol.Observation) {
		for i := 0; i < b.N; i++ {
			r.Route(obs[i%len(obs)])
		}
	})
}

// BenchmarkRouteEnqueueParallel is BenchmarkRouteEnqueue from concurrent
// ingest requests.
func BenchmarkRouteEnqueueParallel(b *testing.B) {
	benchBlocked(b, func(r *Router, obs []*protocol.Observation) {
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				r.Route(obs[i%len(obs)])
				i += 7
			}
		})
	})
}
