package searchalerts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/kit/kittest"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/delivery/deliverytest"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

type memStore struct {
	mu     sync.Mutex
	nextID int64
	qs     []persistence.SAQuery
}

func (m *memStore) CreateSAQuery(_ context.Context, q persistence.SAQuery) (persistence.SAQuery, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	q.ID = m.nextID
	m.qs = append(m.qs, q)
	return q, nil
}

func (m *memStore) DeleteSAQuery(_ context.Context, account string, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.qs)
	m.qs = slices.DeleteFunc(m.qs, func(q persistence.SAQuery) bool { return q.ID == id && q.AccountID == account })
	if len(m.qs) == n {
		return persistence.ErrNotFound
	}
	return nil
}

func (m *memStore) ListSAQueries(context.Context) ([]persistence.SAQuery, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.qs), nil
}

func (m *memStore) ListSAQueriesOf(ctx context.Context, accounts []string) ([]persistence.SAQuery, error) {
	all, _ := m.ListSAQueries(ctx)
	return slices.DeleteFunc(all, func(q persistence.SAQuery) bool { return !slices.Contains(accounts, q.AccountID) }), nil
}

var (
	t0        = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	quiet     = slog.New(slog.NewTextHandler(io.Discard, nil))
	intervals = protocol.DefaultTimings().SAIntervals
)

func TestRegistry(t *testing.T) {
	ctx := context.Background()
	st := &memStore{}
	r := NewRegistry(st, intervals)
	q1, err := r.Create(ctx, "a", "  Solana ETF ", "1h", t0)
	if err != nil || q1.ID == 0 || q1.Text != "Solana ETF" || q1.Interval != "1h" {
		t.Fatalf("create: %+v, %v", q1, err)
	}
	var dup *DuplicateError
	if _, err := r.Create(ctx, "a", "etf SOLANA", "5m", t0); !errors.As(err, &dup) || dup.ID != q1.ID {
		t.Fatalf("same words: %v", err)
	}
	if _, err := r.Create(ctx, "b", "solana etf", "5m", t0); err != nil { // another account
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, "a", "x", "2m", t0); err == nil {
		t.Fatal("unknown interval accepted")
	}
	if _, err := r.Create(ctx, "a", "!!", "5m", t0); err == nil {
		t.Fatal("a query with no word accepted")
	}
	for i := 1; i < protocol.SAMaxQueries; i++ {
		if _, err := r.Create(ctx, "a", fmt.Sprint("word", i), "5m", t0); err != nil {
			t.Fatalf("query %d: %v", i+1, err)
		}
	}
	if _, err := r.Create(ctx, "a", "one more", "5m", t0); !errors.Is(err, ErrLimit) {
		t.Fatalf("query 21: %v", err)
	}
	if r.Count("a") != protocol.SAMaxQueries {
		t.Fatalf("count %d", r.Count("a"))
	}
	if got := r.match(set(Tokenize("the SOLANA etf is here")...)); len(got) != 2 {
		t.Fatalf("matches %v, want the queries of a and b", got)
	}
	if got := r.match(set("word1", "word10")); fmt.Sprint(len(got)) != "2" {
		t.Fatalf("matches of word1 word10: %v", got)
	}
	if err := r.Remove(ctx, "b", q1.ID); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("remove of another account's query: %v", err)
	}
	if err := r.Remove(ctx, "a", q1.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, "a", q1.ID); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("second remove: %v", err)
	}
	if got := r.match(set("solana", "etf")); len(got) != 1 {
		t.Fatalf("after remove: %v", got)
	}
	if _, err := r.Create(ctx, "a", "one more", "5m", t0); err != nil {
		t.Fatalf("a freed slot: %v", err)
	}
	r2 := NewRegistry(st, intervals)
	if err := r2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r2.List("a")) != fmt.Sprint(r.List("a")) || r2.Count("b") != 1 {
		t.Fatalf("reloaded %v\nwant %v", r2.List("a"), r.List("a"))
	}
}

// manualTimers records scheduled flushes; the test fires them.
type manualTimers struct {
	mu     sync.Mutex
	timers []*manualTimer
}

type manualTimer struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (t *manualTimer) Stop() bool { t.stopped = true; return true }

func (m *manualTimers) after(d time.Duration, f func()) Timer {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &manualTimer{d: d, f: f}
	m.timers = append(m.timers, t)
	return t
}

func (m *manualTimers) wait(t *testing.T, n int) []*manualTimer {
	t.Helper()
	var got []*manualTimer
	testkit.WaitFor(t, 5*time.Second, fmt.Sprintf("%d timers", n), func() (bool, string) {
		m.mu.Lock()
		got = slices.Clone(m.timers)
		m.mu.Unlock()
		return len(got) >= n, fmt.Sprint(len(got))
	})
	return got
}

// alertKeys summarises the frames of a socket: query id/post id.
func alertKeys(t *testing.T, frames []string) []string {
	t.Helper()
	var out []string
	for _, a := range alerts(t, frames) {
		out = append(out, fmt.Sprintf("%d/%s", a.QueryID, a.TweetID))
	}
	return out
}

func alerts(t *testing.T, frames []string) []Alert {
	t.Helper()
	var out []Alert
	for _, f := range frames {
		var v struct {
			Type string `json:"type"`
			Data Alert  `json:"data"`
		}
		if err := json.Unmarshal([]byte(f), &v); err != nil || v.Type != FrameType {
			t.Fatalf("bad frame %s", f)
		}
		out = append(out, v.Data)
	}
	return out
}

func post(id, text string) *protocol.Observation {
	return &protocol.Observation{Kind: protocol.KindPost, Post: &protocol.Tweet{ID: id, Text: text,
		Author: protocol.TweetAuthor{Handle: "solwhale", Name: "Sol Whale"}}}
}

// seen is the change the handle actor tells of o.
func seen(o *protocol.Observation, isNew bool) *handle.PostSeen {
	return &handle.PostSeen{Handle: "solwhale", Obs: o, New: isNew}
}

func TestScheduleAndDedupe(t *testing.T) {
	ctx := context.Background()
	timers := &manualTimers{}
	now := t0.Add(90 * time.Second)
	hub := delivery.NewHub()
	s, err := New(ctx, kittest.Quiet(t), Config{Store: &memStore{}, Hub: hub, Intervals: intervals, Now: func() time.Time { return now },
		AfterFunc: timers.after, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	qFast, err := s.Queries.Create(ctx, "a", "solana etf", "1m", t0)
	if err != nil {
		t.Fatal(err)
	}
	qSlow, err := s.Queries.Create(ctx, "a", "etf", "6h", t0)
	if err != nil {
		t.Fatal(err)
	}
	qOther, err := s.Queries.Create(ctx, "b", "bitcoin", "5m", t0)
	if err != nil {
		t.Fatal(err)
	}
	sa := deliverytest.Subscribe(t, hub, delivery.AccountTopic(protocol.ProductSA, "a"))
	sb := deliverytest.Subscribe(t, hub, delivery.AccountTopic(protocol.ProductSA, "b"))

	s.Hear(seen(post("1", "Solana ETF approved"), true))
	s.Hear(seen(post("2", "no match here"), true))
	s.Hear(seen(post("1", "Solana ETF approved (update)"), false)) // same post again
	s.Hear(seen(post("3", "another ETF: solana"), true))
	// One timer per query that collected something, set to its next
	// boundary: created + k x interval after now.
	tm := timers.wait(t, 2)
	byDur := map[time.Duration]*manualTimer{}
	for _, x := range tm {
		byDur[x.d] = x
	}
	fast, slow := byDur[30*time.Second], byDur[6*time.Hour-90*time.Second]
	if len(tm) != 2 || fast == nil || slow == nil {
		t.Fatalf("timers %v, want 30s (1m query) and 5h58m30s (6h query)", []time.Duration{tm[0].d, tm[1].d})
	}
	if n := len(sa.Events()); n != 0 {
		t.Fatalf("%d alerts before any flush: not on schedule", n)
	}
	fast.f()
	got := alertKeys(t, sa.WaitFrames(t, 2))
	if want := fmt.Sprintf("[%d/1 %d/3]", qFast.ID, qFast.ID); fmt.Sprint(got) != want {
		t.Fatalf("first flush %v, want %s", got, want)
	}
	// After its flush the query collects afresh; an alerted post stays
	// alerted (no duplicate), a new one waits for the next flush.
	s.Hear(seen(post("1", "Solana ETF approved"), false))
	s.Hear(seen(post("4", "solana etf flows"), true))
	tm = timers.wait(t, 3)
	tm[2].f()
	slow.f()
	got = alertKeys(t, sa.WaitFrames(t, 6))
	if want := fmt.Sprintf("[%d/1 %d/3 %d/4 %d/1 %d/3 %d/4]", qFast.ID, qFast.ID, qFast.ID, qSlow.ID, qSlow.ID, qSlow.ID); fmt.Sprint(got) != want {
		t.Fatalf("alerts %v, want %s", got, want)
	}
	a := alerts(t, sa.Frames())[0]
	if a.QueryText != "solana etf" || a.FullText != "Solana ETF approved" || a.ScreenName != "solwhale" ||
		a.DisplayName != "Sol Whale" || a.TweetURL != "https://x.com/solwhale/status/1" {
		t.Errorf("alert %+v", a)
	}
	// A removed query's collected matches are dropped with its timer.
	s.Hear(seen(post("5", "bitcoin"), true))
	tm = timers.wait(t, 4)
	if err := s.Remove(ctx, "b", qOther.ID); err != nil {
		t.Fatal(err)
	}
	s.Hear(seen(post("6", "solana etf"), true)) // sentinel: the removal was handled before this
	timers.wait(t, 5)
	tm[3].f()
	timers.wait(t, 5)[4].f()
	sa.Wait(t, 7)
	if n := len(sb.Events()); n != 0 {
		t.Fatalf("removed query alerted %d times", n)
	}
	if !tm[3].stopped {
		t.Error("the removed query's timer was not stopped")
	}
}
