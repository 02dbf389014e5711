package handle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// logSink keeps the records logged through it.
type logSink struct {
	mu   sync.Mutex
	recs []map[string]string
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, m)
	return nil
}
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *logSink) WithGroup(string) slog.Handler      { return s }

// errors returns the records logged at level error.
func (s *logSink) errors() []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]string
	for _, r := range s.recs {
		if r["level"] == "ERROR" {
			out = append(out, r)
		}
	}
	return out
}

// traces keeps the follow events the actors trace.
type traces struct {
	mu  sync.Mutex
	ids []string // "<kind> <task id>"
}

func (t *traces) Trace(_ string, e *delivery.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ids = append(t.ids, e.Header.Kind.Name()+" "+e.Header.TaskID)
}

func (t *traces) list() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.ids...)
}

// countingLoader loads a fixed following baseline and counts its loads.
type countingLoader struct {
	loads     atomic.Int64
	following []protocol.FollowUser
}

func (l *countingLoader) LoadHandle(_ context.Context, _ string, into *State) error {
	l.loads.Add(1)
	if l.following != nil {
		into.setFollowing(l.following, 1)
	}
	return nil
}

// hearFunc is a Subscriber for tests: it runs on the publishing actor's
// goroutine (products tell their own actors instead).
type hearFunc func(change any)

func (f hearFunc) Hear(c any) { f(c) }

// onDeleted subscribes f to the post deletions.
func onDeleted(f func(o *protocol.Observation)) *Subscriptions {
	return &Subscriptions{PostDeleted: []Subscriber{hearFunc(func(c any) { f(c.(*PostDeleted).Obs) })}}
}

type life struct {
	r      *Router
	sys    *actor.ActorSystem
	w      *writer.Writer
	logs   *logSink
	traces *traces
	// lost counts observations sent to a stopped actor (dead letters).
	lost atomic.Int64
}

// newRig starts a router over a writer that drops what it writes, with
// passivation left to the test (sweep), and everything it logs kept.
func newLife(t *testing.T, d *Deps, opts ...Option) *life {
	t.Helper()
	g := &life{logs: &logSink{}, traces: &traces{}}
	log := slog.New(g.logs)
	g.sys = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	if d.Writer == nil {
		g.w = writer.New(discardStore{}, writer.Options{Logger: log})
		d.Writer = g.w
	}
	d.Dir, d.Log, d.Timings, d.Trace = directory.New(), log, protocol.DefaultTimings(), g.traces
	sub := g.sys.EventStream.Subscribe(func(ev any) {
		if dl, ok := ev.(*actor.DeadLetterEvent); ok {
			if _, ok := dl.Message.(*Observe); ok {
				g.lost.Add(1)
			}
		}
	})
	// Restarts without backoff, so a test can panic many times in a row.
	sup := kit.NewSupervisor(log, kit.Backoff{Initial: time.Microsecond, Max: time.Microsecond, Window: time.Minute})
	g.r = NewRouter(g.sys, d, append([]Option{WithPassivateAfter(0), WithSupervisor(sup)}, opts...)...)
	t.Cleanup(func() {
		g.r.Stop()
		g.sys.EventStream.Unsubscribe(sub)
		if g.w != nil {
			g.w.Stop()
		}
		g.sys.Shutdown()
	})
	return g
}

// settle waits until every routed observation was handled.
func (g *life) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for g.r.Backlog() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("backlog stuck at %d", g.r.Backlog())
		}
		time.Sleep(time.Millisecond)
	}
}

// passivate waits until every routed observation was handled and written,
// then passivates the one live actor.
func (g *life) passivate(t *testing.T, w *writer.Writer) {
	t.Helper()
	g.settle(t)
	if err := w.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	g.r.sweep()
	if n := g.r.sweep(); n != 1 {
		t.Fatalf("passivated %d, want the one live actor", n)
	}
}

func (g *life) route(t *testing.T, line string) { g.r.Route(decode(t, line, time.Now().UnixMilli())) }

func following(h string, ids ...string) string {
	us := make([]string, len(ids))
	for i, id := range ids {
		us[i] = fmt.Sprintf(`{"id":%q,"handle":"u%s"}`, id, id)
	}
	return fmt.Sprintf(`{"kind":"following","handle":%q,"users":[%s]}`, h, strings.Join(us, ","))
}

func deleted(h, id string) string {
	return fmt.Sprintf(`{"kind":"post_deleted","handle":%q,"tweet_id":%q}`, h, id)
}

// TestPanicInHandleActor injects panics into a handle actor through a test
// subscriber (run inline here, unlike products; nothing outside can trigger
// one): each is
// logged with the actor's name and the message type, the actor restarts from
// its loader (not from the half-updated instance), is never stopped (more
// than protoactor's default 10 failures in 10 s), handles what comes next,
// and the backlog gets back to 0.
func TestPanicInHandleActor(t *testing.T) {
	subs := onDeleted(func(o *protocol.Observation) {
		if o.PostDeleted.TweetID != nil && *o.PostDeleted.TweetID == "666" {
			panic("poisoned observation")
		}
	})
	loader := &countingLoader{following: []protocol.FollowUser{{ID: "1", Handle: "u1"}}}
	g := newLife(t, &Deps{Subs: subs, Loader: loader})

	g.route(t, following("whale", "1", "2")) // diffed against the loaded baseline {1}
	const panics = 20
	for range panics {
		g.route(t, deleted("whale", "666"))
	}
	g.route(t, following("whale", "1", "2")) // a new instance: baseline {1} again, from the loader
	g.settle(t)

	if got, want := g.traces.list(), []string{"social.following.new 2", "social.following.new 2"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("follow events %v, want %v: the restarted actor must start from the loader", got, want)
	}
	if n := loader.loads.Load(); n != panics+1 {
		t.Errorf("%d loads, want %d (one per start)", n, panics+1)
	}
	if n := g.r.Len(); n != 1 {
		t.Errorf("%d live actors, want 1", n)
	}
	errs := g.logs.errors()
	if len(errs) != panics {
		t.Fatalf("%d errors logged, want %d: %v", len(errs), panics, errs)
	}
	for _, e := range errs {
		if !strings.HasPrefix(e["actor"], "handle/whale$") || e["message"] != "*handle.Observe" ||
			e["panic"] != "poisoned observation" || !strings.Contains(e["stack"], "TestPanicInHandleActor") {
			t.Fatalf("failure logged as %v", e)
		}
	}
	if n := g.lost.Load(); n != 0 {
		t.Errorf("%d observations lost", n)
	}
}

// TestPassivateIdle: an actor told nothing for a whole sweep period is
// passivated and leaves the router; the next message starts a new one,
// which loads again.
func TestPassivateIdle(t *testing.T) {
	loader := &countingLoader{}
	g := newLife(t, &Deps{Loader: loader})
	g.route(t, deleted("whale", "1"))
	g.route(t, `{"kind":"user","id":"7","handle":"whale"}`)
	g.route(t, `{"kind":"engagement","tweet_id":"5"}`)
	g.settle(t)
	first := g.r.Get("whale", KindHandle)
	if n := g.r.Len(); n != 3 {
		t.Fatalf("%d live, want 3", n)
	}
	if n := g.r.sweep(); n != 0 {
		t.Fatalf("first sweep passivated %d: each was used since the previous one", n)
	}
	if n := g.r.sweep(); n != 3 || g.r.Len() != 0 {
		t.Fatalf("second sweep passivated %d, %d left", n, g.r.Len())
	}
	g.route(t, deleted("whale", "2"))
	g.settle(t)
	if again := g.r.Get("whale", KindHandle); again.Equal(first) {
		t.Errorf("the same PID %s after passivation", again)
	}
	if n := loader.loads.Load(); n != 2 {
		t.Errorf("%d loads, want 2", n)
	}
	if n := g.lost.Load(); n != 0 {
		t.Errorf("%d observations lost", n)
	}
}

// TestPassivationRacesRoute plays both orders of a Route racing an idle
// sweep: told between the sweep's two steps, the actor stays; told right
// after it was passivated (while it stops), the message starts a new
// activation. Nothing reaches a stopping actor.
func TestPassivationRacesRoute(t *testing.T) {
	var handled atomic.Int64
	g := newLife(t, &Deps{Subs: onDeleted(func(*protocol.Observation) { handled.Add(1) })})
	g.route(t, deleted("whale", "1"))
	g.settle(t)
	g.r.sweep() // clears the used flag

	cands := g.r.idleCandidates()
	if len(cands) != 1 {
		t.Fatalf("%d candidates", len(cands))
	}
	g.route(t, deleted("whale", "2")) // between the two steps
	if n := g.r.passivate(cands); n != 0 {
		t.Fatalf("passivated an actor that was just told something")
	}
	g.settle(t)

	g.r.sweep()
	first := g.r.Get("whale", KindHandle)
	if n := g.r.sweep(); n != 1 {
		t.Fatalf("idle actor not passivated (%d)", n)
	}
	g.route(t, deleted("whale", "3")) // the old one is stopping right now
	g.settle(t)
	if g.r.Get("whale", KindHandle).Equal(first) {
		t.Error("routed to the passivated activation")
	}
	if n := handled.Load(); n != 3 {
		t.Errorf("%d observations handled, want 3", n)
	}
	if n := g.lost.Load(); n != 0 {
		t.Errorf("%d observations lost", n)
	}
}

// TestPassivationUnderLoad routes from several goroutines while another
// sweeps without pause: every observation is handled once, in order per
// handle, and none is lost.
func TestPassivationUnderLoad(t *testing.T) {
	const handles, perHandle, senders = 20, 300, 4
	var mu sync.Mutex
	last := map[string]int{}
	var handled atomic.Int64
	var disorder atomic.Int64
	subs := onDeleted(func(o *protocol.Observation) {
		var n int
		fmt.Sscan(*o.PostDeleted.TweetID, &n)
		mu.Lock()
		if n <= last[o.Key] {
			disorder.Add(1)
		}
		last[o.Key] = n
		mu.Unlock()
		handled.Add(1)
	})
	g := newLife(t, &Deps{Subs: subs})
	stop := make(chan struct{})
	var passivated atomic.Int64
	var sweeps sync.WaitGroup
	sweeps.Add(1)
	go func() {
		defer sweeps.Done()
		for {
			select {
			case <-stop:
				return
			default:
				passivated.Add(int64(g.r.sweep()))
			}
		}
	}()
	var wg sync.WaitGroup
	for s := range senders { // each sender owns its handles, so each handle's order is its sender's
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= perHandle; i++ {
				for h := s; h < handles; h += senders {
					g.route(t, deleted(fmt.Sprintf("h%d", h), fmt.Sprint(i)))
				}
			}
		}()
	}
	wg.Wait()
	g.settle(t)
	close(stop)
	sweeps.Wait()
	if n := handled.Load(); n != handles*perHandle {
		t.Errorf("%d handled, want %d", n, handles*perHandle)
	}
	if n := disorder.Load(); n != 0 {
		t.Errorf("%d observations out of order", n)
	}
	if n := g.lost.Load(); n != 0 {
		t.Errorf("%d observations lost", n)
	}
	t.Logf("%d passivations during the run", passivated.Load())
}

// TestPassivationKeepsState: what the handle actor keeps survives
// passivation through the store (StoreLoader): a post seen before is not new
// again, and the following baseline is not taken again.
func TestPassivationKeepsState(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	type seen struct {
		id    string
		first int64
		isNew bool
	}
	var mu sync.Mutex
	var posts []seen
	subs := &Subscriptions{PostSeen: []Subscriber{hearFunc(func(c any) {
		p := c.(*PostSeen)
		mu.Lock()
		defer mu.Unlock()
		posts = append(posts, seen{p.Obs.Post.ID, p.FirstSeen, p.New})
	})}}
	w := writer.New(st, writer.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(w.Stop)
	g := newLife(t, &Deps{Writer: w, Subs: subs, Loader: StoreLoader{Store: st, Window: 24 * time.Hour}})
	now := time.Now().UnixMilli()
	post := fmt.Sprintf(`{"kind":"post","id":"900","created_at":%d,"type":"post","text":"gm","author":{"id":"7","handle":"whale"}}`, now-1000)
	g.r.Route(decode(t, post, now))
	g.route(t, following("whale", "1"))
	g.passivate(t, w)
	g.r.Route(decode(t, post, now+5000))
	g.route(t, following("whale", "1", "2"))
	g.settle(t)
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 2 || !posts[0].isNew || posts[1].isNew || posts[1].first != now {
		t.Errorf("posts seen %+v: the second must be known, first seen at %d", posts, now)
	}
	if got := g.traces.list(); len(got) != 1 || got[0] != "social.following.new 2" {
		t.Errorf("follow events %v: the baseline must survive passivation", got)
	}
}

func TestStoreLoaderWindow(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	ctx := t.Context()
	if err := st.SavePosts(ctx, []persistence.Post{
		{ID: "old", Handle: "whale", CreatedAt: now.Add(-25 * time.Hour), DetectedAt: now.Add(-25 * time.Hour), Data: []byte(`{"id":"old","text":"x"}`)},
		{ID: "new", Handle: "whale", CreatedAt: now.Add(-time.Hour), DetectedAt: now.Add(-time.Hour), Data: []byte(`{"id":"new","text":"hello","type":"reply"}`)},
	}); err != nil {
		t.Fatal(err)
	}
	s := newState()
	if err := (StoreLoader{Store: st, Window: 24 * time.Hour, Now: func() time.Time { return now }}).LoadHandle(ctx, "whale", &s); err != nil {
		t.Fatal(err)
	}
	if len(s.posts) != 1 || s.posts["new"].textLen != 5 || s.posts["new"].firstSeen != now.Add(-time.Hour).UnixMilli() {
		t.Errorf("posts %+v", s.posts)
	}
	if s.following != nil {
		t.Errorf("a baseline without a stored list: %v", s.following)
	}
}

// TestLookupRequests: a request through the lookup counts like a tell (the
// actor releases it, so the activation can still passivate), and after Stop
// it fails at once as stopped.
func TestLookupRequests(t *testing.T) {
	g := newLife(t, &Deps{})
	type ping struct{}
	f := g.r.RequestFuture("whale", KindHandle, &ping{}, 50*time.Millisecond)
	if _, err := kit.Await[int](f, "handle/whale", &ping{}); !errors.Is(err, kit.ErrTimeout) {
		t.Fatalf("a handle actor answered a ping: %v", err)
	}
	g.r.sweep()
	if n := g.r.sweep(); n != 1 {
		t.Fatalf("passivated %d: the request was not released", n)
	}
	g.r.Stop()
	f = g.r.RequestFuture("whale", KindHandle, &ping{}, time.Minute)
	if _, err := kit.Await[int](f, "handle/whale", &ping{}); !errors.Is(err, kit.ErrStopped) {
		t.Fatalf("after Stop: %v", err)
	}
	if pid := g.r.Get("whale", KindHandle); pid != nil {
		t.Errorf("Get after Stop: %s", pid)
	}
	g.route(t, deleted("whale", "1"))
	if n := g.r.Backlog(); n != 0 {
		t.Errorf("an observation routed after Stop holds the backlog: %d", n)
	}
}

// TestActivationLayout: senders' and the actor's counters stay on cache
// lines of their own only while the struct is 128 bytes (see activation).
func TestActivationLayout(t *testing.T) {
	var a activation
	if size, handled := unsafe.Sizeof(a), unsafe.Offsetof(a.handled); size != 128 || handled < 64 {
		t.Errorf("activation is %d bytes with handled at %d: keep it 128 with handled on the second line", size, handled)
	}
}
