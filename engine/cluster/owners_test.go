package cluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/pgtest"
)

// TestOwnerOfMovesOnlyAShare: every part has one owner among the members,
// and a member joining takes parts only for itself (the others keep theirs).
func TestOwnerOfMovesOnlyAShare(t *testing.T) {
	t.Parallel()
	two, three := []string{"10.0.0.1:7946", "10.0.0.2:7946"}, []string{"10.0.0.1:7946", "10.0.0.2:7946", "10.0.0.3:7946"}
	per := map[string]int{}
	for p := range Partitions {
		a, b := OwnerOf(two, p), OwnerOf(three, p)
		if a != b && b != three[2] {
			t.Errorf("part %d moved from %s to %s when %s joined", p, a, b, three[2])
		}
		per[b]++
	}
	for _, m := range three {
		if per[m] < Partitions/6 {
			t.Errorf("member %s owns %d of %d parts", m, per[m], Partitions)
		}
	}
	if OwnerOf(nil, 1) != "" {
		t.Error("a part has an owner without members")
	}
	if p := Part("xg", 42); p != Part("xg", 42) || p < 0 || p >= Partitions {
		t.Errorf("Part %d", p)
	}
}

// holders is what the fake queues of several nodes hold: the node sending
// each key. Taking a key another node holds is the failure these tests look
// for (two senders).
type holders struct {
	mu   sync.Mutex
	by   map[int64]string
	errs []string
}

func (h *holders) take(node string, key int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur, ok := h.by[key]; ok && cur != node {
		h.errs = append(h.errs, fmt.Sprintf("%s took key %d while %s sent it", node, key, cur))
	}
	h.by[key] = node
}

func (h *holders) drop(node string, key int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by[key] == node {
		delete(h.by, key)
	}
}

// count is how many keys node holds.
func (h *holders) count(node string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, v := range h.by {
		if v == node {
			n++
		}
	}
	return n
}

// fakeQueue is one node's queue of keys 0..keys-1.
type fakeQueue struct {
	node string
	h    *holders
}

const fakeKeys = 300

func (q *fakeQueue) Scope() string { return "xg" }
func (q *fakeQueue) Take(owned func(int64) bool) {
	for k := range int64(fakeKeys) {
		if owned(k) {
			q.h.take(q.node, k)
		}
	}
}
func (q *fakeQueue) Yield(_ context.Context, yielded func(int64) bool) error {
	for k := range int64(fakeKeys) {
		if yielded(k) {
			q.h.drop(q.node, k)
		}
	}
	return nil
}
func (q *fakeQueue) Wake([]int64) {}
func (q *fakeQueue) Sweep()       {}

// members is a node's view of the membership, changed by the test.
type members struct{ v atomic.Value }

func (m *members) set(ms ...string) { m.v.Store(ms) }
func (m *members) get() []string    { return m.v.Load().([]string) }

func startOwners(t *testing.T, url, self string, h *holders, view *members) *Owners {
	o := NewOwners(url, "test", self, view.get, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	o.every = 20 * time.Millisecond
	o.Add(&fakeQueue{node: self, h: h})
	o.Start()
	t.Cleanup(o.Stop)
	return o
}

// wantShares waits until each node holds the keys of the parts OwnerOf
// gives it among members.
func wantShares(t *testing.T, h *holders, members []string) {
	t.Helper()
	want := map[string]int{}
	for k := range int64(fakeKeys) {
		want[OwnerOf(members, Part("xg", k))]++
	}
	testkit.WaitFor(t, 20*time.Second, fmt.Sprintf("shares %v", want), func() (bool, string) {
		got := map[string]int{}
		for m := range want {
			got[m] = h.count(m)
		}
		return fmt.Sprint(got) == fmt.Sprint(want), fmt.Sprint(got)
	})
}

// TestOwnersNeverTwoSenders: a node that joins takes its share only once
// the old owner yielded it (while the old one has not seen the join, the
// locks keep the new one out), and a node that dies (its connection gone)
// leaves its share to the survivors as soon as they see it gone.
func TestOwnersNeverTwoSenders(t *testing.T) {
	url := pgtest.Migrated(t)
	t.Parallel()
	h := &holders{by: map[int64]string{}}
	viewA, viewB := &members{}, &members{}
	viewA.set("A")
	a := startOwners(t, url, "A", h, viewA)
	wantShares(t, h, []string{"A"})

	viewB.set("A", "B") // B sees A; A has not seen B yet: B takes nothing A holds
	b := startOwners(t, url, "B", h, viewB)
	testkit.WaitFor(t, 20*time.Second, "B's rounds", func() (bool, string) { return b.rounds.Load() >= 3, "" })
	if n := h.count("B"); n != 0 {
		t.Fatalf("B took %d keys that A held", n)
	}
	viewA.set("A", "B")
	wantShares(t, h, []string{"A", "B"})

	a.Stop() // as a SIGKILL does: the connection and its locks are gone
	h.mu.Lock()
	for k, v := range h.by {
		if v == "A" {
			delete(h.by, k) // the dead process holds nothing
		}
	}
	h.mu.Unlock()
	viewB.set("B")
	wantShares(t, h, []string{"B"})
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.errs {
		t.Error(e)
	}
}
