package retention

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
	"github.com/jonboulle/clockwork"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// fakeStore holds row times per kind; Prune deletes the oldest below the cut.
type fakeStore struct {
	mu    sync.Mutex
	rows  map[persistence.Prunable][]time.Time
	calls int
}

func (s *fakeStore) Prune(_ context.Context, kind persistence.Prunable, before time.Time, limit int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	rs := s.rows[kind]
	slices.SortFunc(rs, func(a, b time.Time) int { return a.Compare(b) })
	n := 0
	for n < len(rs) && n < limit && rs[n].Before(before) {
		n++
	}
	s.rows[kind] = rs[n:]
	return n, nil
}

func (s *fakeStore) left(kind persistence.Prunable) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows[kind])
}

// TestPrunerPasses: on each tick of its clock the pruner deletes, kind by
// kind and in batches, what is older than the retention period, and
// nothing newer; counts add up across passes.
func TestPrunerPasses(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	now := clock.Now()
	st := &fakeStore{rows: map[persistence.Prunable][]time.Time{}}
	for i := range 7 { // 7 posts 10 s apart, the newest 4 s old
		st.rows[persistence.PrunePosts] = append(st.rows[persistence.PrunePosts], now.Add(-time.Duration(64-10*i)*time.Second))
	}
	st.rows[persistence.PruneDeliveries] = []time.Time{now.Add(-time.Hour), now}
	passes := make(chan map[persistence.Prunable]int, 4)
	p := Start(Config{Store: st, Keep: 30 * time.Second, Every: time.Minute, Batch: 2, Pause: time.Microsecond,
		Clock: clock, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		AfterPass: func(d map[persistence.Prunable]int) { passes <- d }})
	defer p.Stop()

	if err := clock.BlockUntilContext(t.Context(), 1); err != nil { // the ticker waits
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	got := <-passes
	// At now+1 min the cut is now+30 s: past every post (the newest is
	// now-4 s) and both deliveries; two rows per statement.
	if got[persistence.PrunePosts] != 7 || got[persistence.PruneDeliveries] != 2 {
		t.Errorf("first pass deleted %v", got)
	}
	if st.left(persistence.PrunePosts) != 0 {
		t.Errorf("%d posts left", st.left(persistence.PrunePosts))
	}

	// New rows: one old, one fresh at the second pass.
	now = clock.Now()
	st.mu.Lock()
	st.rows[persistence.PruneTrace] = []time.Time{now.Add(-time.Minute), now.Add(time.Minute)}
	st.mu.Unlock()
	clock.Advance(time.Minute)
	got = <-passes
	if got[persistence.PruneTrace] != 1 || st.left(persistence.PruneTrace) != 1 {
		t.Errorf("second pass deleted %v, %d trace rows left", got, st.left(persistence.PruneTrace))
	}
	total := map[persistence.Prunable]uint64{}
	p.Deleted(func(k persistence.Prunable, n uint64) { total[k] = n })
	if total[persistence.PrunePosts] != 7 || total[persistence.PruneTrace] != 1 || total[persistence.PruneDeliveries] != 2 || len(total) != len(persistence.Prunables) {
		t.Errorf("totals %v", total)
	}
}

// TestPrunerBatchesPerPass: a pass stops at MaxBatches statements per
// kind; the next pass goes on.
func TestPrunerBatchesPerPass(t *testing.T) {
	clock := clockwork.NewFakeClock()
	st := &fakeStore{rows: map[persistence.Prunable][]time.Time{}}
	for range 10 {
		st.rows[persistence.PruneObservations] = append(st.rows[persistence.PruneObservations], clock.Now().Add(-time.Hour))
	}
	passes := make(chan map[persistence.Prunable]int, 4)
	p := Start(Config{Store: st, Keep: time.Minute, Every: time.Second, Batch: 3, MaxBatches: 2, Pause: time.Microsecond,
		Clock: clock, AfterPass: func(d map[persistence.Prunable]int) { passes <- d }})
	defer p.Stop()
	for _, want := range []int{6, 4} {
		if err := clock.BlockUntilContext(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
		if got := <-passes; got[persistence.PruneObservations] != want {
			t.Errorf("pass deleted %d observations, want %d", got[persistence.PruneObservations], want)
		}
	}
}

func TestNoRetentionNoPruner(t *testing.T) {
	if p := Start(Config{Store: &fakeStore{}, Keep: 0}); p != nil {
		t.Fatal("a pruner started with no retention")
	}
	var p *Pruner
	p.Stop()
	p.Deleted(func(persistence.Prunable, uint64) { t.Error("a nil pruner counted") })
}
