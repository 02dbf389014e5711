package kit

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// protoactor's dead-letter log throttle runs a goroutine of its own for
	// one second after a dead letter; it ends by itself.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}

// logSink keeps the records logged through it.
type logSink struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r.Clone())
	return nil
}
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *logSink) WithGroup(string) slog.Handler      { return s }

// failures returns the attributes of each failure logged, as strings.
func (s *logSink) failures() []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]string
	for _, r := range s.recs {
		if r.Level != slog.LevelError {
			continue
		}
		m := map[string]string{"msg": r.Message}
		r.Attrs(func(a slog.Attr) bool {
			m[a.Key] = a.Value.String()
			return true
		})
		out = append(out, m)
	}
	return out
}

// newKit returns a kit over a fresh actor system, closed at the end.
func newKit(t *testing.T, opts ...Option) (*Kit, *logSink) {
	t.Helper()
	sink := &logSink{}
	log := slog.New(sink)
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	k, err := New(sys, append([]Option{WithLogger(log)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		k.Close()
		sys.Shutdown()
	})
	return k, sink
}

// Messages of the test actors.
type (
	get    struct{}
	add    struct{ n int }
	poison struct{} // panics after half an update
	silent struct{} // never answered
	fail   struct{} // answered with an error
	wrong  struct{} // answered with a string
)

var errRefused = errors.New("refused")

// fakeStore is the persisted value of a counter.
type fakeStore struct {
	saved atomic.Int64
	loads atomic.Int64
	err   atomic.Pointer[error]
}

// counter keeps a value that it persists on every add and reloads on start.
type counter struct {
	st    *fakeStore
	value int
}

func (a *counter) Load(context.Context) error {
	a.st.loads.Add(1)
	if p := a.st.err.Load(); p != nil {
		return *p
	}
	a.value = int(a.st.saved.Load())
	return nil
}

func (a *counter) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *add:
		a.value += m.n
		a.st.saved.Store(int64(a.value))
	case *poison:
		a.value += 1000 // half an update: never persisted
		panic("poisoned")
	case *get:
		c.Respond(a.value)
	case *fail:
		c.Respond(errRefused)
	case *wrong:
		c.Respond("a string")
	}
}

func TestAskErrors(t *testing.T) {
	k, _ := newKit(t)
	r, err := k.Spawn(t.Context(), "counter", func() actor.Actor { return &counter{st: &fakeStore{}} })
	if err != nil {
		t.Fatal(err)
	}
	stopped, err := k.Spawn(t.Context(), "stopped", func() actor.Actor { return &counter{st: &fakeStore{}} })
	if err != nil {
		t.Fatal(err)
	}
	if err := stopped.Stop(); err != nil {
		t.Fatal(err)
	}
	r.Tell(&add{n: 2})
	cases := []struct {
		name string
		to   *Ref
		msg  any
		want error // nil: answer 2
	}{
		{"answer", r, &get{}, nil},
		{"error answer", r, &fail{}, errRefused},
		{"wrong type", r, &wrong{}, ErrUnexpectedAnswer},
		{"no answer", r, &silent{}, ErrTimeout},
		{"stopped", stopped, &get{}, ErrStopped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Ask[int](c.to, c.msg, WithTimeout(50*time.Millisecond))
			if c.want == nil {
				if err != nil || v != 2 {
					t.Fatalf("got %d %v, want 2", v, err)
				}
				return
			}
			var ae *AskError
			if !errors.Is(err, c.want) || !errors.As(err, &ae) {
				t.Fatalf("got %v, want %v as *AskError", err, c.want)
			}
			if ae.Actor != c.to.PID().Id || ae.Message != typeName(c.msg) {
				t.Errorf("error names %q %q", ae.Actor, ae.Message)
			}
		})
	}
}

func TestSpawn(t *testing.T) {
	k, _ := newKit(t)
	st := &fakeStore{}
	st.saved.Store(7)
	r, err := k.Spawn(t.Context(), "counter", func() actor.Actor { return &counter{st: st} })
	if err != nil {
		t.Fatal(err)
	}
	if r.PID().Id != GuardianName+"/counter" || r.Name() != "counter" {
		t.Errorf("pid %s name %s", r.PID().Id, r.Name())
	}
	if v, err := Ask[int](r, &get{}); err != nil || v != 7 {
		t.Errorf("loaded %d %v, want 7", v, err)
	}
	if _, err := k.Spawn(t.Context(), "counter", func() actor.Actor { return &counter{st: st} }); err == nil {
		t.Error("a second singleton of the same name started")
	}

	bad := &fakeStore{}
	down := errors.New("store down")
	bad.err.Store(&down)
	if _, err := k.Spawn(t.Context(), "bad", func() actor.Actor { return &counter{st: bad} }); !errors.Is(err, down) {
		t.Fatalf("spawn with a failing load: %v", err)
	}
	// The name is free again: the failed one was stopped.
	bad.err.Store(nil)
	if _, err := k.Spawn(t.Context(), "bad", func() actor.Actor { return &counter{st: bad} }); err != nil {
		t.Fatalf("respawn after a failed load: %v", err)
	}
}

// TestPanicRestartsFromTheStore injects a panic into a singleton: it is logged
// with the actor's name and the message's type, the message is dropped, the
// actor restarts as a new instance loaded from the store (not the
// half-updated one) and handles what comes next.
func TestPanicRestartsFromTheStore(t *testing.T) {
	k, logs := newKit(t)
	st := &fakeStore{}
	var instances atomic.Int64
	r, err := k.Spawn(t.Context(), "counter", func() actor.Actor {
		instances.Add(1)
		return &counter{st: st}
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Tell(&add{n: 5})
	r.Tell(&poison{})
	r.Tell(&add{n: 1})
	if v, err := Ask[int](r, &get{}); err != nil || v != 6 {
		t.Fatalf("after the panic: %d %v, want 6 (5 persisted, the poisoned half-update gone, 1 after)", v, err)
	}
	if n := instances.Load(); n != 2 {
		t.Errorf("%d instances, want 2: the restart must produce a new one", n)
	}
	if n := st.loads.Load(); n != 2 {
		t.Errorf("%d loads, want 2", n)
	}
	f := logs.failures()
	if len(f) != 1 {
		t.Fatalf("logged failures %v, want 1", f)
	}
	if f[0]["actor"] != "guardian/counter" || f[0]["message"] != "*kit.poison" || f[0]["panic"] != "poisoned" ||
		!strings.Contains(f[0]["stack"], "kit.(*counter).Receive") {
		t.Errorf("failure logged as %v", f[0])
	}
}

// TestBackoff: a second failure in a row waits for its backoff with the
// mailbox suspended (nothing lost); Stop hurries it and still drains.
func TestBackoff(t *testing.T) {
	k, logs := newKit(t, WithBackoff(Backoff{Initial: time.Hour, Max: time.Hour, Window: time.Hour}))
	st := &fakeStore{}
	r, err := k.Spawn(t.Context(), "counter", func() actor.Actor { return &counter{st: st} })
	if err != nil {
		t.Fatal(err)
	}
	r.Tell(&poison{}) // first failure: restarted at once
	if v, err := Ask[int](r, &get{}); err != nil || v != 0 {
		t.Fatalf("after the first panic: %d %v", v, err)
	}
	r.Tell(&poison{}) // second in a row: an hour's backoff
	r.Tell(&add{n: 3})
	waitFor(t, "the delayed restart", func() bool {
		k.sup.mu.Lock()
		defer k.sup.mu.Unlock()
		return k.sup.waiting[r.PID().Id] != nil
	})
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := st.saved.Load(); got != 3 {
		t.Errorf("saved %d after Stop, want 3: the message queued behind the backoff was lost", got)
	}
	if f := logs.failures(); len(f) != 2 || f[1]["restart_in"] != "1h0m0s" || f[1]["failures_in_a_row"] != "2" {
		t.Errorf("failures logged %v", f)
	}
}

func TestBackoffDelays(t *testing.T) {
	b := Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond, Window: time.Second}
	for n, want := range map[int]time.Duration{1: 0, 2: 10 * time.Millisecond, 3: 20 * time.Millisecond,
		4: 40 * time.Millisecond, 5: 50 * time.Millisecond, 40: 50 * time.Millisecond} {
		if got := b.delay(n); got != want {
			t.Errorf("failure %d: %v, want %v", n, got, want)
		}
	}
	if got := (Backoff{}).resolve(); got != DefaultBackoff {
		t.Errorf("zero backoff resolves to %+v", got)
	}
}

// TestStopDrains: what was told before Stop is handled; Close stops the rest.
func TestStopDrains(t *testing.T) {
	k, _ := newKit(t)
	st := &fakeStore{}
	r, err := k.Spawn(t.Context(), "counter", func() actor.Actor { return &counter{st: st} })
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		r.Tell(&add{n: 1})
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := st.saved.Load(); got != 1000 {
		t.Errorf("saved %d, want 1000", got)
	}
	if err := r.Stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}
	other, err := k.Spawn(t.Context(), "other", func() actor.Actor { return &counter{st: &fakeStore{}} })
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	if _, err := Ask[int](other, &get{}); !errors.Is(err, ErrStopped) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := k.Spawn(t.Context(), "late", func() actor.Actor { return &counter{st: &fakeStore{}} }); err == nil {
		t.Error("spawned after Close")
	}
}

// waitFor polls cond: for a state that is reached asynchronously (never to
// prove that something did not happen).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
