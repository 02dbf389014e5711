package launchpad

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
	"github.com/jonboulle/clockwork"
)

type chanSink chan *protocol.Observation

func (s chanSink) Send(ctx context.Context, lines [][]byte) error {
	for _, l := range lines {
		o, err := protocol.DecodeObservation(l, 1)
		if err != nil {
			panic("connector produced a line ingest rejects: " + err.Error())
		}
		select {
		case s <- o:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (s chanSink) next(t *testing.T, ctx context.Context) *protocol.LaunchpadObs {
	t.Helper()
	select {
	case o := <-s:
		return o.Launchpad
	case <-ctx.Done():
		t.Fatal("no observation arrived")
		return nil
	}
}

type rig struct {
	fake  *launchpadfake.Server
	clock *clockwork.FakeClock
	sink  chanSink
	c     *Connector
}

func newRig(t *testing.T) (*rig, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	r := &rig{fake: launchpadfake.New(), clock: clockwork.NewFakeClockAt(time.Unix(1795248000, 0)), sink: make(chanSink, 100)}
	url := r.fake.Start()
	var err error
	r.c, err = New(Config{WSURL: url, Backfill: true, Clock: r.clock, Logger: slog.New(slog.NewTextHandler(testW{t}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = r.c.Run(ctx, r.sink); close(done) }()
	t.Cleanup(func() { cancel(); <-done; r.fake.Close() })
	if err := r.fake.WaitSubscribed(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return r, ctx
}

func TestCreateAndCompleteBecomeObservations(t *testing.T) {
	r, ctx := newRig(t)
	create := launchpadfake.CreateEvent{Name: "Dog Wif Hat Two", Symbol: "WIF2", URI: "https://ipfs.io/ipfs/Qm123", Mint: mint, BondingCurve: curve,
		User: dev, Creator: dev, Timestamp: 1795247999}
	sig := launchpadfake.Signature("create")
	if n := r.fake.Send(sig, launchpadfake.Logs(DefaultProgram, "Create", create.Data()), false); n != 1 {
		t.Fatalf("notified %d", n)
	}
	got := r.sink.next(t, ctx)
	want := protocol.LaunchpadObs{EventType: "token_launched", WalletAddress: dev, Mint: mint, TokenName: "Dog Wif Hat Two", TokenSymbol: "WIF2",
		Creator: dev, BondingCurve: curve, URI: "https://ipfs.io/ipfs/Qm123", Signature: sig}
	if *got != want {
		t.Fatalf("%+v", *got)
	}
	r.fake.Send(launchpadfake.Signature("complete"), launchpadfake.Logs(DefaultProgram, "Buy",
		launchpadfake.TradeEvent{Mint: mint}.Data(), launchpadfake.CompleteEvent{User: owner, Mint: mint, BondingCurve: curve, Timestamp: 1795248000}.Data()), false)
	if got := r.sink.next(t, ctx); got.EventType != "graduated" || got.Mint != mint || got.WalletAddress != owner {
		t.Fatalf("%+v", *got)
	}
	waitStats(t, ctx, r.c, func(s Snapshot) bool { return s.Graduations == 1 })
	s := r.c.Stats()
	if s.Launches != 1 || s.Graduations != 1 || s.Skipped != 1 || s.LagCount != 2 || s.LagMillisMax != 1000 {
		t.Fatalf("stats %+v", s)
	}
}

func TestGarbageAndFailedTransactionsSkipped(t *testing.T) {
	r, ctx := newRig(t)
	create := launchpadfake.CreateEvent{Name: "A", Symbol: "B", URI: "C", Mint: mint, BondingCurve: curve, User: dev}
	r.fake.SendRaw([]byte("{not json"))
	r.fake.Send(launchpadfake.Signature("failed"), launchpadfake.Logs(DefaultProgram, "Create", create.Data()), true)
	r.fake.Send(launchpadfake.Signature("short"), launchpadfake.Logs(DefaultProgram, "Create", create.Data()[:20]), false)
	r.fake.Send(launchpadfake.Signature("ok"), launchpadfake.Logs(DefaultProgram, "Create", create.Data()), false)
	if got := r.sink.next(t, ctx); got.Signature != launchpadfake.Signature("ok") {
		t.Fatalf("%+v", *got)
	}
	waitStats(t, ctx, r.c, func(s Snapshot) bool { return s.Launches == 1 })
	if s := r.c.Stats(); s.Malformed != 2 || s.Skipped != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestResubscribesAndBackfillsAfterAReconnect(t *testing.T) {
	r, ctx := newRig(t)
	ev := func(seed string) []string {
		return launchpadfake.Logs(DefaultProgram, "Create", launchpadfake.CreateEvent{Name: seed, Symbol: "S", URI: "u",
			Mint: launchpadfake.Address(seed), BondingCurve: curve, User: dev}.Data())
	}
	r.fake.Send(launchpadfake.Signature("before"), ev("before"), false)
	r.sink.next(t, ctx)

	r.fake.Pause() // the provider is down: the reconnect fails until Resume
	r.fake.Drop()
	if err := r.fake.WaitSubscribed(ctx, 0); err != nil {
		t.Fatal(err)
	}
	r.fake.Record(launchpadfake.Signature("missed"), ev("missed"))
	if err := r.clock.BlockUntilContext(ctx, 1); err != nil { // the backoff after the refused reconnect
		t.Fatal(err)
	}
	r.fake.Resume()
	r.clock.Advance(time.Second)
	if err := r.fake.WaitSubscribed(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := r.sink.next(t, ctx); got.TokenName != "missed" {
		t.Fatalf("backfill gave %+v", *got)
	}
	r.fake.Send(launchpadfake.Signature("after"), ev("after"), false)
	if got := r.sink.next(t, ctx); got.TokenName != "after" {
		t.Fatalf("got %+v", *got)
	}
	waitStats(t, ctx, r.c, func(s Snapshot) bool { return s.Launches == 3 })
	if s := r.c.Stats(); s.Reconnects != 2 || s.Backfilled != 1 || r.fake.Subscribes() != 2 {
		t.Fatalf("stats %+v, %d subscribes", s, r.fake.Subscribes())
	}
}

// waitStats polls until the counters reach cond (they are updated just
// after the sink returns).
func waitStats(t *testing.T, ctx context.Context, c *Connector, cond func(Snapshot) bool) {
	t.Helper()
	for !cond(c.Stats()) {
		select {
		case <-ctx.Done():
			t.Fatalf("stats never got there: %+v", c.Stats())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

type testW struct{ t *testing.T }

func (w testW) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }
