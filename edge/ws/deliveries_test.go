package ws

import (
	"testing"
	"time"

	"github.com/alertd/alertd/internal/latency"
)

// TestDeliveriesCounted: events sent with SendEvent count, once the client
// has them, under the connection's class, timed from their stamp when they
// carry one; plain Sends, pings and other classes do not.
func TestDeliveriesCounted(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{Class: 2})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)

	stamp := latency.Now()
	sc.SendEvent([]byte("timed"), stamp)
	sc.SendEvent([]byte("untimed"), 0)
	sc.Send([]byte("not an event"))
	for _, want := range []string{"timed", "untimed", "not an event"} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, m, err := c.ReadMessage(); err != nil || string(m) != want {
			t.Fatalf("read %q, %v; want %q", m, err, want)
		}
	}
	// The writer counts a batch right after its write returns, which may be
	// after the client read it.
	var n uint64
	var lat latency.Snapshot
	waitFor(t, func() bool { n, lat = ts.hub.Deliveries(2); return n >= 2 })
	if n != 2 || lat.Count() != 1 {
		t.Fatalf("class 2: %d deliveries, %d timed; want 2 and 1", n, lat.Count())
	}
	if most := latency.Since(stamp, latency.Now()); lat.Sum <= 0 || lat.Sum > most || lat.Counts[latency.Bucket(lat.Sum)] != 1 {
		t.Errorf("latency sum %v, counts %v: want one observation in its bucket, above 0 and at most %v", lat.Sum, lat.Counts, most)
	}
	if n, _ := ts.hub.Deliveries(0); n != 0 {
		t.Errorf("class 0: %d deliveries, want 0", n)
	}
}
