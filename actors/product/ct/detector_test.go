package ct

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/kit/kittest"
	"github.com/alertd/alertd/actors/product/watchlist/watchtest"
	"github.com/alertd/alertd/protocol"
)

type syncPersist struct{}

func (syncPersist) Do(_ string, f func(ctx context.Context) error) { _ = f(context.Background()) }

type hook struct {
	account string
	body    map[string]any
}

type fakeHooks struct {
	mu   sync.Mutex
	sent []hook
}

func (f *fakeHooks) Send(account string, body []byte) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		panic(err)
	}
	f.mu.Lock()
	f.sent = append(f.sent, hook{account, m})
	f.mu.Unlock()
}

func (f *fakeHooks) take() []hook {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.sent
	f.sent = nil
	return out
}

type fakeSock struct {
	filter delivery.FrameFilter
	mu     sync.Mutex
	frames []map[string]any
}

// Deliver makes the fake a hub subscriber that keeps what a product socket
// with its filter would send.
func (s *fakeSock) Deliver(e *delivery.Event) {
	if s.filter.Allows(e) {
		s.Send(e.ProductFrame())
	}
}

func (s *fakeSock) Send(b []byte) bool {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.frames = append(s.frames, m)
	s.mu.Unlock()
	return true
}

func (s *fakeSock) take() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.frames
	s.frames = nil
	return out
}

var base = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

type rig struct {
	now atomic.Int64 // the detector's clock, epoch ms
	// stored is what the handle actors persisted: the last memberships told.
	stored sync.Map // handle -> []handle.Membership
	t      *testing.T
	kit    *kit.Kit
	store  *watchtest.Store
	reg    *Registry
	hooks  *fakeHooks
	hub    *delivery.Hub
	det    *Detector
}

func newRig(t *testing.T) *rig {
	r := &rig{t: t, kit: kittest.Quiet(t), store: watchtest.NewStore(), hooks: &fakeHooks{}, hub: delivery.NewHub()}
	r.reg = NewRegistry(r.store, func() time.Time { return base })
	if err := r.reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.now.Store(base.UnixMilli())
	r.start()
	t.Cleanup(func() { r.det.Stop() })
	return r
}

func (r *rig) start() {
	det, err := StartDetector(context.Background(), r.kit, &Deps{Registry: r.reg, Memberships: r.memberships, Live: r.live, Hub: r.hub, Webhooks: r.hooks,
		Persist: syncPersist{}, Store: r.store, Now: func() time.Time { return time.UnixMilli(r.now.Load()).UTC() }})
	if err != nil {
		r.t.Fatal(err)
	}
	r.det = det
}

func (r *rig) watch(acct string, handles ...string) {
	for _, h := range handles {
		if _, err := r.reg.Add(context.Background(), acct, h, struct{}{}, 50); err != nil {
			r.t.Fatal(err)
		}
	}
}

func (r *rig) settings(acct string, f func(*Settings)) {
	if _, err := r.reg.UpdateSettings(context.Background(), acct, func(s *Settings) error { f(s); return nil }); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) memberships(_ context.Context, h string) ([]handle.Membership, bool, error) {
	ms, ok := r.stored.Load(h)
	if !ok {
		return nil, false, nil
	}
	return ms.([]handle.Membership), true, nil
}

// live plays handle.Memberships: the handle actors' memberships now.
func (r *rig) live(ctx context.Context, hs []string) (map[string]handle.MembershipsView, error) {
	out := map[string]handle.MembershipsView{}
	for _, h := range hs {
		ms, known, err := r.memberships(ctx, h)
		if err != nil {
			return nil, err
		}
		out[h] = handle.MembershipsView{Memberships: ms, Known: known}
	}
	return out, nil
}

// member is a membership of community id, joined at hour joinedH (-1: in the
// handle's first list, join time unknown).
func member(id string, joinedH float64, count int64) handle.Membership {
	m := handle.Membership{Community: protocol.Community{ID: id, Name: "Community " + id, MemberCount: count}}
	if joinedH >= 0 {
		m.JoinedAt = base.Add(time.Duration(joinedH * float64(time.Hour))).UnixMilli()
	}
	return m
}

// observe tells handle's memberships as observed at hour atH, as its handle
// actor does, with the communities it left.
func (r *rig) observe(h string, atH float64, ms []handle.Membership, left ...string) {
	at := base.Add(time.Duration(atH * float64(time.Hour))).UnixMilli()
	r.now.Store(at)
	c := &handle.MembershipsChanged{Handle: h, Memberships: ms, At: at}
	for _, id := range left {
		c.Changes = append(c.Changes, handle.MembershipChange{Kind: handle.Left, Community: protocol.Community{ID: id}})
	}
	r.stored.Store(h, ms)
	r.det.Hear(c)
	r.settle()
}

func (r *rig) settle() {
	if _, err := r.det.Current("nobody"); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) fired() []string {
	var out []string
	for _, h := range r.hooks.take() {
		d := h.body["data"].(map[string]any)
		var hs []string
		for _, x := range d["converging_handles"].([]any) {
			hs = append(hs, x.(string))
		}
		out = append(out, fmt.Sprintf("%s:%s:%v", h.account, d["community_id"], hs))
	}
	return out
}

func TestConvergenceFiresAndGrows(t *testing.T) {
	r := newRig(t)
	r.watch("acct", "a", "b", "c")
	sock := &fakeSock{}
	r.hub.Subscribe(delivery.AccountTopic(protocol.ProductCT, "acct"), sock)
	r.observe("a", 1, []handle.Membership{member("C", 1, 900)})
	if f := r.fired(); len(f) != 0 {
		t.Fatalf("one handle fired %v", f)
	}
	r.observe("b", 2, []handle.Membership{member("C", 2, 900)})
	hooks := r.hooks.take()
	if len(hooks) != 1 {
		t.Fatalf("two handles in one community within the window: %d webhooks, want 1", len(hooks))
	}
	b := hooks[0].body
	if b["event"] != "convergence_detected" || b["timestamp"] != float64(base.Add(2*time.Hour).UnixMilli()) {
		t.Errorf("webhook %v", b)
	}
	d := b["data"].(map[string]any)
	var keys []string
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if fmt.Sprint(keys) != "[community_id community_name convergence_count converging_handles detected_at member_count]" {
		t.Errorf("data keys %v", keys)
	}
	if d["community_id"] != "C" || d["community_name"] != "Community C" || d["member_count"] != 900.0 ||
		d["convergence_count"] != 2.0 || fmt.Sprint(d["converging_handles"]) != "[a b]" || d["detected_at"] != "2026-07-01T02:00:00.000Z" {
		t.Errorf("data %v", d)
	}
	frames := sock.take()
	if len(frames) != 1 || frames[0]["type"] != "convergence" || fmt.Sprint(frames[0]["data"]) != fmt.Sprint(d) {
		t.Errorf("frames %v", frames)
	}
	r.observe("b", 3, []handle.Membership{member("C", 2, 900)}) // the same two again
	if f := r.fired(); len(f) != 0 {
		t.Errorf("an unchanged convergence fired again: %v", f)
	}
	r.observe("c", 4, []handle.Membership{member("C", 4, 901)})
	if f := r.fired(); fmt.Sprint(f) != "[acct:C:[a b c]]" {
		t.Errorf("a growing convergence: %v, want it to fire again with three", f)
	}
	if evs := r.store.Events(protocol.ProductCT); len(evs) != 2 {
		t.Errorf("history has %d events, want 2", len(evs))
	}
	cur, err := r.det.Current("acct")
	if err != nil || len(cur) != 1 || cur[0].ConvergenceCount != 3 || cur[0].MemberCount != 901 {
		t.Errorf("current %+v %v", cur, err)
	}
}

func TestConvergenceWindowsAndSettings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*Settings)
		steps func(r *rig)
		want  string
	}{
		{"joins a day apart miss a 24 h window", nil, func(r *rig) {
			r.observe("a", 0, []handle.Membership{member("C", 0, 10)})
			r.observe("b", 24.01, []handle.Membership{member("C", 24.01, 10)})
		}, "[]"},
		{"the same joins meet in a 48 h window", func(s *Settings) { s.TimeWindowHours = 48 }, func(r *rig) {
			r.observe("a", 0, []handle.Membership{member("C", 0, 10)})
			r.observe("b", 24.01, []handle.Membership{member("C", 24.01, 10)})
		}, "[acct:C:[a b]]"},
		{"memberships from the sync never count", nil, func(r *rig) {
			r.observe("a", 1, []handle.Membership{member("C", -1, 10)})
			r.observe("b", 1, []handle.Membership{member("C", 1, 10)})
		}, "[]"},
		{"min_convergence 3 waits for the third", func(s *Settings) { s.MinConvergence = 3 }, func(r *rig) {
			r.observe("a", 1, []handle.Membership{member("C", 1, 10)})
			r.observe("b", 1, []handle.Membership{member("C", 1, 10)})
			r.observe("c", 1, []handle.Membership{member("C", 1, 10)})
		}, "[acct:C:[a b c]]"},
		{"under min_member_count nothing fires", func(s *Settings) { s.MinMemberCount = 100 }, func(r *rig) {
			r.observe("a", 1, []handle.Membership{member("C", 1, 99)})
			r.observe("b", 1, []handle.Membership{member("C", 1, 99)})
		}, "[]"},
		{"a leave ends it; coming back fires anew", nil, func(r *rig) {
			r.observe("a", 1, []handle.Membership{member("C", 1, 10)})
			r.observe("b", 1, []handle.Membership{member("C", 1, 10)})
			r.observe("b", 2, nil, "C")
			r.observe("b", 3, []handle.Membership{member("C", 3, 10)})
		}, "[acct:C:[a b] acct:C:[a b]]"},
		{"two communities converge apart", nil, func(r *rig) {
			r.observe("a", 1, []handle.Membership{member("C", 1, 10), member("D", 1, 10)})
			r.observe("b", 1, []handle.Membership{member("C", 1, 10)})
			r.observe("c", 2, []handle.Membership{member("D", 2, 10)})
		}, "[acct:C:[a b] acct:D:[a c]]"},
		{"an aged-out report fires again once new joins make the count", nil, func(r *rig) {
			r.observe("a", 1, []handle.Membership{member("C", 1, 10)})
			r.observe("b", 1, []handle.Membership{member("C", 1, 10)})
			r.observe("a", 30, nil, "C")
			r.observe("b", 30, nil, "C")
			r.observe("a", 31, []handle.Membership{member("C", 31, 10)})
			r.observe("c", 31, []handle.Membership{member("C", 31, 10)})
		}, "[acct:C:[a b] acct:C:[a c]]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.watch("acct", "a", "b", "c")
			if tc.set != nil {
				r.settings("acct", tc.set)
			}
			tc.steps(r)
			if got := fmt.Sprint(r.fired()); got != tc.want {
				t.Errorf("fired %s, want %s", got, tc.want)
			}
		})
	}
}

func TestAccountsAreApart(t *testing.T) {
	r := newRig(t)
	r.watch("one", "a", "b")
	r.watch("two", "a", "c")
	r.observe("a", 1, []handle.Membership{member("C", 1, 10)})
	r.observe("b", 1, []handle.Membership{member("C", 1, 10)})
	if got := fmt.Sprint(r.fired()); got != "[one:C:[a b]]" {
		t.Errorf("fired %s: only account one watches both a and b", got)
	}
	if cur, _ := r.det.Current("two"); len(cur) != 0 {
		t.Errorf("account two has current convergences %+v", cur)
	}
}

func TestRestartDoesNotRefire(t *testing.T) {
	r := newRig(t)
	r.watch("acct", "a", "b")
	a, b := []handle.Membership{member("C", 1, 10)}, []handle.Membership{member("C", 1, 10)}
	r.observe("a", 1, a)
	r.observe("b", 1, b)
	if len(r.fired()) != 1 {
		t.Fatal("no convergence before the restart")
	}
	r.det.Stop()
	r.start() // reloads the memberships the handle actors persisted
	if cur, _ := r.det.Current("acct"); len(cur) != 1 {
		t.Errorf("current right after the restart %+v", cur)
	}
	r.observe("a", 2, a)
	if f := r.fired(); len(f) != 0 {
		t.Errorf("an ongoing convergence fired again after a restart: %v", f)
	}
	if cur, _ := r.det.Current("acct"); len(cur) != 1 {
		t.Errorf("current after restart %+v", cur)
	}
}

func TestUnwatchForgets(t *testing.T) {
	r := newRig(t)
	r.watch("acct", "a", "b")
	r.observe("a", 1, []handle.Membership{member("C", 1, 10)})
	if err := r.reg.Remove(context.Background(), "acct", "a"); err != nil {
		t.Fatal(err)
	}
	r.det.Unwatch("a")
	r.observe("b", 1, []handle.Membership{member("C", 1, 10)})
	if f := r.fired(); len(f) != 0 {
		t.Errorf("a removed handle still counted: %v", f)
	}
	r.det.Hear(&handle.MembershipsChanged{Handle: "a", Memberships: []handle.Membership{member("C", 1, 10)}})
	r.settle()
	if f := r.fired(); len(f) != 0 {
		t.Errorf("an unwatched handle's change counted: %v", f)
	}
}

// TestAddedCountsKnownMemberships: handles added count at once with the
// memberships their actors know (Community Watch's sync): joins seen within
// the window count by their join time, memberships of a first list (join
// time unknown) never do.
func TestAddedCountsKnownMemberships(t *testing.T) {
	r := newRig(t)
	r.stored.Store("a", []handle.Membership{member("C", 5, 900), member("OLD", -1, 900)})
	r.stored.Store("b", []handle.Membership{member("C", 6.5, 900), member("OLD", -1, 900)})
	r.now.Store(base.Add(7 * time.Hour).UnixMilli())
	add := func(acct string, hs ...string) {
		for _, h := range hs {
			r.watch(acct, h)
			r.det.Added(acct, h)
		}
		r.settle()
	}
	add("acct", "a", "nobody")
	if f := r.fired(); len(f) != 0 {
		t.Fatalf("one handle fired %v", f)
	}
	add("acct", "b")
	if f := r.fired(); fmt.Sprint(f) != "[acct:C:[a b]]" {
		t.Fatalf("after the add %v, want C of a and b (OLD has no join times)", f)
	}
	// A one-hour window: a joined two hours ago and no longer counts.
	r.settings("narrow", func(s *Settings) { s.TimeWindowHours = 1 })
	add("narrow", "a", "b")
	if f := r.fired(); len(f) != 0 {
		t.Fatalf("a join older than the window counted: %v", f)
	}
}
