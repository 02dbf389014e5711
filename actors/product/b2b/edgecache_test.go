package b2b

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

func setOf(n int) persistence.FollowEdgeSet {
	s := persistence.FollowEdgeSet{Baseline: true}
	for i := range n {
		s.Edges = append(s.Edges, edge(string(rune('a'+i)), "x", true, 0, 0))
	}
	return s
}

func TestEdgeCache(t *testing.T) {
	c := newEdgeCache(5)
	a, b, d := edgeKey{"a", "following"}, edgeKey{"b", "following"}, edgeKey{"d", "following"}
	c.put(a, setOf(2))
	c.put(b, setOf(2))
	if _, ok := c.get(a); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.put(d, setOf(2)) // 6 edges > 5: b, the least recent, goes
	if _, ok := c.get(b); ok {
		t.Errorf("b kept past the bound")
	}
	if got, ok := c.get(a); !ok || len(got.Edges) != 2 {
		t.Errorf("a = %v %v", got, ok)
	}
	if c.len() != 2 || c.edges != 4 {
		t.Errorf("len %d edges %d, want 2 and 4", c.len(), c.edges)
	}
	c.put(a, setOf(1)) // replacing counts the new size
	if c.edges != 3 {
		t.Errorf("edges %d after replacing a, want 3", c.edges)
	}
	c.put(b, setOf(6)) // larger than the bound: not kept, and evicts nothing
	if _, ok := c.get(b); ok || c.len() != 2 {
		t.Errorf("an oversized set was kept (len %d)", c.len())
	}
	c.drop(a)
	if _, ok := c.get(a); ok || c.edges != 2 {
		t.Errorf("drop: edges %d", c.edges)
	}
	c.clear()
	if _, ok := c.get(d); ok || c.len() != 0 || c.edges != 0 {
		t.Errorf("clear left %d sets, %d edges", c.len(), c.edges)
	}
}

// countingStore counts full-list reads and can fail edge writes.
type countingStore struct {
	persistence.Store
	fullReads atomic.Int64
	failApply atomic.Bool
}

func (s *countingStore) FollowEdges(ctx context.Context, h, rel string, only []string) (persistence.FollowEdgeSet, error) {
	if only == nil {
		s.fullReads.Add(1)
	}
	return s.Store.FollowEdges(ctx, h, rel, only)
}

func (s *countingStore) ApplyFollowEdges(ctx context.Context, u []persistence.FollowEdgeUpdate) error {
	if s.failApply.Load() {
		return errors.New("store down")
	}
	return s.Store.ApplyFollowEdges(ctx, u)
}

// errJobs runs jobs at once and remembers the last error.
type errJobs struct{ last error }

func (j *errJobs) Do(_ string, f func(ctx context.Context) error) { j.last = f(context.Background()) }

func TestRecorderCachesLists(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs := &countingStore{Store: st}
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	jobs := &errJobs{}
	r, err := Start(testKit(t, sys), cs, jobs, Options{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	follow := func(ms int64, ids ...string) {
		t.Helper()
		var users []protocol.FollowUser
		for _, id := range ids {
			users = append(users, protocol.FollowUser{ID: id, Handle: "u" + id})
		}
		o := obs(protocol.KindFollowing, "whale", ms)
		o.Following = &protocol.FollowingObs{Handle: "whale", Users: users}
		r.ObserveFollowing(o)
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	follow(0, "1", "2")
	follow(1000, "2", "3")
	follow(2000, "3", "4")
	if jobs.last != nil {
		t.Fatalf("job: %v", jobs.last)
	}
	if n := cs.fullReads.Load(); n != 1 {
		t.Errorf("%d full reads for three lists of one handle, want 1", n)
	}
	added, err := st.SocialDiff(t.Context(), "whale", []string{persistence.RelationFollowing}, persistence.ChangeAdded, t0.Add(-time.Hour), 10)
	if err != nil || len(added) != 2 || added[0].TargetID != "4" || added[1].TargetID != "3" {
		t.Errorf("added %+v %v, want 4 then 3", added, err)
	}
	// A failed write clears the cache: the next list reads the store again.
	cs.failApply.Store(true)
	follow(3000, "5")
	if jobs.last == nil {
		t.Fatalf("the failing write did not fail the job")
	}
	cs.failApply.Store(false)
	follow(4000, "4", "5")
	if jobs.last != nil {
		t.Fatalf("job: %v", jobs.last)
	}
	if n := cs.fullReads.Load(); n != 2 {
		t.Errorf("%d full reads after a failure, want 2", n)
	}
	removed, err := st.SocialDiff(t.Context(), "whale", []string{persistence.RelationFollowing}, persistence.ChangeRemoved, t0.Add(-time.Hour), 10)
	var ids []string
	for _, c := range removed {
		ids = append(ids, c.TargetID)
	}
	if err != nil || len(ids) != 3 || ids[0] != "3" {
		t.Errorf("removed %v %v, want 3 (the failed list left no trace), 2, 1", ids, err)
	}
}
