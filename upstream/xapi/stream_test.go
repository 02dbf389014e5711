package xapi

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/alertd/alertd/upstream/xapi/xapifake"
	"github.com/jonboulle/clockwork"
)

// streamRig runs a lone streamer against a fake under a fake clock, so the
// only clock waiters are the stream's (its backoff, or its watchdog).
type streamRig struct {
	fake  *xapifake.Server
	clock *clockwork.FakeClock
	sink  *chanSink
	st    *streamer
	stats *Stats
}

func newStreamRig(t *testing.T, ctx context.Context, base string, fake *xapifake.Server, clock ...*clockwork.FakeClock) *streamRig {
	t.Helper()
	r := &streamRig{fake: fake, clock: clockwork.NewFakeClockAt(testStart), sink: newChanSink(), stats: &Stats{}}
	if len(clock) > 0 {
		r.clock = clock[0]
	}
	if base == "" {
		base = fake.Start()
		t.Cleanup(fake.Close)
	}
	em := newEmitter(r.sink, r.clock, r.stats, quietLog())
	r.st = &streamer{c: testClient(fake, base, r.clock, r.stats), clock: r.clock, stall: 30 * time.Second,
		emit: em, stats: r.stats, log: quietLog()}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	go func() { em.run(ctx); done <- struct{}{} }()
	go func() { r.st.run(ctx); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	return r
}

func (r *streamRig) calls() int { return len(r.fake.Calls(xapifake.EpStream)) }

func (r *streamRig) waitCalls(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	waitFor(t, ctx, "stream connection attempts", func() bool { return r.calls() >= n })
}

// publish pushes a post and waits for its observation.
func (r *streamRig) publish(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	p := original()
	p.ID = id
	r.fake.PushRaw(r.fake.Line(p))
	if o := r.sink.next(t, ctx); o.Post == nil || o.Post.ID != id {
		t.Fatalf("got %+v, want post %s", o, id)
	}
}

func TestStreamReconnectsAtOnceAfterADrop(t *testing.T) {
	ctx := ctxT(t)
	fake := xapifake.New(xapifake.Options{KeepAlive: -1})
	seed(fake)
	r := newStreamRig(t, ctx, "", fake)
	if err := fake.WaitStreams(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.publish(t, ctx, "1860000000000000010")
	fake.Drop()
	r.waitCalls(t, ctx, 2) // no clock advance needed: the first reconnect is immediate
	if err := fake.WaitStreams(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.publish(t, ctx, "1860000000000000011")
	waitFor(t, ctx, "the post counted", func() bool { return r.stats.Posts.Load() == 2 })
	if s := r.stats.Snapshot(); s.Reconnects != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestStreamBacksOffOnHTTPErrors(t *testing.T) {
	ctx := ctxT(t)
	fake := xapifake.New(xapifake.Options{KeepAlive: -1})
	fake.FailNext(xapifake.EpStream, 503, 503)
	r := newStreamRig(t, ctx, "", fake)
	for i, wait := range []time.Duration{5 * time.Second, 10 * time.Second} { // exponential from 5 s
		r.waitCalls(t, ctx, i+1)
		if err := r.clock.BlockUntilContext(ctx, 1); err != nil { // the backoff timer
			t.Fatal(err)
		}
		r.clock.Advance(wait - time.Millisecond)
		if n := r.calls(); n != i+1 {
			t.Fatalf("attempt %d came %v early", n, time.Millisecond)
		}
		r.clock.Advance(time.Millisecond)
	}
	r.waitCalls(t, ctx, 3)
	if err := fake.WaitStreams(ctx, 1); err != nil {
		t.Fatal(err)
	}
}

func TestStreamWaitsForTheRateLimitReset(t *testing.T) {
	ctx := ctxT(t)
	clock := clockwork.NewFakeClockAt(testStart)
	fake := xapifake.New(xapifake.Options{KeepAlive: -1, Clock: clock})
	fake.SpendBudget(xapifake.EpStream, 90*time.Second) // 429 with x-rate-limit-reset 90 s ahead
	r := newStreamRig(t, ctx, "", fake, clock)
	r.waitCalls(t, ctx, 1)
	if err := r.clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(89 * time.Second) // past the 1-minute schedule, before the reset
	if n := r.calls(); n != 1 {
		t.Fatalf("%d calls before the reset", n)
	}
	r.clock.Advance(time.Second)
	if err := fake.WaitStreams(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if c := fake.Calls(xapifake.EpStream); len(c) != 2 || c[0].Status != 429 || c[1].Status != 200 {
		t.Fatalf("calls %+v", c)
	}
}

func TestStreamBacksOffLinearlyOnNetworkErrors(t *testing.T) {
	ctx := ctxT(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close() // nothing listens: every dial fails
	r := newStreamRig(t, ctx, base, xapifake.New(xapifake.Options{}))
	for i, wait := range []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond} {
		if err := r.clock.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if n := r.stats.Reconnects.Load(); n != int64(i) {
			t.Fatalf("reconnects %d before waiting %v", n, wait)
		}
		r.clock.Advance(wait)
		waitFor(t, ctx, "the next attempt", func() bool { return r.stats.Reconnects.Load() == int64(i+1) })
	}
}

func TestStreamStallIsReconnected(t *testing.T) {
	ctx := ctxT(t)
	fake := xapifake.New(xapifake.Options{KeepAlive: -1}) // the server sends nothing at all
	seed(fake)
	r := newStreamRig(t, ctx, "", fake)
	if err := fake.WaitStreams(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.clock.BlockUntilContext(ctx, 1); err != nil { // the watchdog
		t.Fatal(err)
	}
	r.clock.Advance(29 * time.Second)
	if s := r.stats.Snapshot(); s.Stalls != 0 || r.calls() != 1 {
		t.Fatalf("gave up early: %+v", s)
	}
	r.clock.Advance(time.Second)
	r.waitCalls(t, ctx, 2)
	r.reconnected(t, ctx)
	r.publish(t, ctx, "1860000000000000012")
	if s := r.stats.Snapshot(); s.Stalls != 1 || s.Reconnects < 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestStreamSkipsGarbageAndCountsIt(t *testing.T) {
	ctx := ctxT(t)
	fake := xapifake.New(xapifake.Options{KeepAlive: -1})
	seed(fake)
	r := newStreamRig(t, ctx, "", fake)
	if err := fake.WaitStreams(ctx, 1); err != nil {
		t.Fatal(err)
	}
	fake.PushRaw([]byte("{not json"))
	fake.PushRaw([]byte(""))
	fake.PushRaw([]byte(`{"errors":[{"title":"operational-disconnect","disconnect_type":"UpstreamOperationalDisconnect","type":"https://api.twitter.com/2/problems/operational-disconnect"}]}`))
	r.publish(t, ctx, "1860000000000000013")
	if s := r.stats.Snapshot(); s.Malformed != 1 || s.KeepAlives != 1 || s.Skipped != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// reconnected waits for the stream to be open again after a new call (a 200
// means the server let the old stream go first). The server may not yet
// have seen the stalled connection go (the client ended it): it then
// answers the documented 429 TooManyConnections, and the connector waits
// out the rate schedule, which the fake clock skips.
func (r *streamRig) reconnected(t *testing.T, ctx context.Context) {
	t.Helper()
	for {
		calls := r.fake.Calls(xapifake.EpStream)
		last := calls[len(calls)-1]
		if last.Status == 200 {
			if err := r.fake.WaitStreams(ctx, 1); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := r.clock.BlockUntilContext(ctx, 1); err != nil { // the backoff
			t.Fatal(err)
		}
		r.clock.Advance(rateMax)
		r.waitCalls(t, ctx, len(calls)+1)
	}
}
