package cluster

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/pgtest"
)

// TestSingletonOneLeaderAndTakeover: of two nodes, one runs the job; the
// other does not while the leader lives, and takes over once the leader's
// connection is gone (as a SIGKILL ends it), never with the job running on
// both.
func TestSingletonOneLeaderAndTakeover(t *testing.T) {
	url := pgtest.URL(t)
	t.Parallel()
	var running, most, runs atomic.Int32
	job := func(ctx context.Context) {
		n := running.Add(1)
		runs.Add(1)
		for {
			if m := most.Load(); n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-ctx.Done()
		running.Add(-1)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	start := func() *Singleton {
		s := NewSingleton(url, "test", "poller", job, log)
		s.every = 20 * time.Millisecond
		s.Start()
		t.Cleanup(s.Stop)
		return s
	}
	a := start()
	testkit.WaitFor(t, 20*time.Second, "A leads", func() (bool, string) { return a.Leading(), "" })
	b := start()
	other := NewSingleton(url, "test", "another job", func(ctx context.Context) { <-ctx.Done() }, log)
	other.every = 20 * time.Millisecond
	other.Start() // a singleton of another name leads beside A
	t.Cleanup(other.Stop)
	testkit.WaitFor(t, 20*time.Second, "the other job leads", func() (bool, string) { return other.Leading(), "" })
	testkit.WaitFor(t, 20*time.Second, "B's rounds", func() (bool, string) { return b.rounds.Load() >= 3, "" })
	if b.Leading() {
		t.Fatal("B leads while A does")
	}
	a.Stop()
	testkit.WaitFor(t, 20*time.Second, "B takes over", func() (bool, string) { return b.Leading(), "" })
	if m := most.Load(); m != 1 {
		t.Errorf("the job ran on %d nodes at once", m)
	}
	if r := runs.Load(); r != 2 {
		t.Errorf("the job started %d times, want 2 (A, then B)", r)
	}
}
