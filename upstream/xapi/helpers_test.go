package xapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
	"github.com/jonboulle/clockwork"
)

// testStart is the fake clocks' epoch: rate-limit resets are Unix seconds,
// so the clock must look like a real date.
var testStart = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// ctxT is a context that ends with the test (and after 30 s at most, so a
// hung test fails instead of stalling the suite).
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// handleSet is a HandleSet the test changes.
type handleSet struct {
	mu  sync.Mutex
	set []Monitored
	ch  chan struct{}
}

func newHandleSet(hs ...string) *handleSet {
	s := &handleSet{ch: make(chan struct{}, 1)}
	s.Set(hs...)
	return s
}

func (s *handleSet) Set(hs ...string) {
	ms := make([]Monitored, len(hs))
	for i, h := range hs {
		ms[i] = Monitored{Handle: h}
	}
	s.SetMonitored(ms...)
}

func (s *handleSet) SetMonitored(ms ...Monitored) {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b Monitored) int {
		if a.Handle < b.Handle {
			return -1
		}
		if a.Handle > b.Handle {
			return 1
		}
		return 0
	})
	s.mu.Lock()
	s.set = ms
	s.mu.Unlock()
	select {
	case s.ch <- struct{}{}:
	default:
	}
}

func (s *handleSet) Monitored() []Monitored {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.set)
}

func (s *handleSet) Changed() <-chan struct{} { return s.ch }

// chanSink hands every line to a channel, decoded, so tests read what the
// engine would get.
type chanSink struct{ obs chan *protocol.Observation }

func newChanSink() *chanSink { return &chanSink{obs: make(chan *protocol.Observation, 4096)} }

func (s *chanSink) Send(ctx context.Context, lines [][]byte) error {
	for _, l := range lines {
		o, err := protocol.DecodeObservation(l, 1)
		if err != nil {
			panic("connector produced a line ingest rejects: " + err.Error() + ": " + string(l))
		}
		select {
		case s.obs <- o:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// next waits for the next observation.
func (s *chanSink) next(t *testing.T, ctx context.Context) *protocol.Observation {
	t.Helper()
	select {
	case o := <-s.obs:
		return o
	case <-ctx.Done():
		t.Fatal("no observation arrived")
		return nil
	}
}

// testClient is a client of fake under clock.
func testClient(fake *xapifake.Server, base string, clock clockwork.Clock, st *Stats) *client {
	return &client{base: base, token: fake.Token(), http: &http.Client{}, lim: newLimiter(clock, st), stats: st}
}

// waitFor polls cond until it holds (a positive condition; never used to
// prove that something did not happen).
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(2 * time.Millisecond):
		}
	}
}
