package xapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

func TestLimiterHoldsCallsUntilTheReset(t *testing.T) {
	clock := clockwork.NewFakeClockAt(testStart)
	st := &Stats{}
	l := newLimiter(clock, st)
	h := http.Header{}
	h.Set("x-rate-limit-limit", "15")
	h.Set("x-rate-limit-remaining", "2")
	h.Set("x-rate-limit-reset", "1795248300") // testStart + 5 min
	l.update(epFollowing, 200, h)
	if d := l.delay(epFollowing); d != 0 {
		t.Fatalf("budget left, delay %v", d)
	}
	h.Set("x-rate-limit-remaining", "0")
	l.update(epFollowing, 200, h)
	if d := l.delay(epFollowing); d != 5*time.Minute {
		t.Fatalf("spent budget: delay %v", d)
	}
	if d := l.delay(epUsersBy); d != 0 {
		t.Fatalf("other endpoint delayed %v", d)
	}
	// A 429 without headers spends a whole window.
	l.update(epUsers, 429, http.Header{})
	if d := l.delay(epUsers); d != defaultWindow {
		t.Fatalf("429 delay %v", d)
	}
	done := make(chan error, 1)
	go func() { done <- l.wait(context.Background(), epFollowing) }()
	if err := clock.BlockUntilContext(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := l.delay(epFollowing); d != 0 {
		t.Fatalf("after the reset: delay %v", d)
	}
	if st.RateLimitWaits.Load() != 1 {
		t.Fatalf("waits %d", st.RateLimitWaits.Load())
	}
}

func TestBackoffSchedules(t *testing.T) {
	var b backoff
	var got []time.Duration
	for range 3 {
		got = append(got, b.next(failNetwork))
	}
	for range 8 {
		got = append(got, b.next(failHTTP))
	}
	for range 3 {
		got = append(got, b.next(failRate))
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond,
		5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 320 * time.Second, 320 * time.Second,
		time.Minute, 2 * time.Minute, 4 * time.Minute}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("step %d: %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	for range 100 {
		b.next(failNetwork)
	}
	if d := b.next(failNetwork); d != 16*time.Second {
		t.Fatalf("network cap %v", d)
	}
	b.reset()
	if d := b.next(failHTTP); d != 5*time.Second {
		t.Fatalf("after reset %v", d)
	}
}
