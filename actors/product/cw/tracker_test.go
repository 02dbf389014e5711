package cw

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/kit/kittest"
	"github.com/alertd/alertd/actors/product/watchlist/watchtest"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/protocol"
)

// syncPersist runs store writes at once, on the caller's goroutine.
type syncPersist struct{}

func (syncPersist) Do(_ string, f func(ctx context.Context) error) { _ = f(context.Background()) }

type sent struct {
	account string
	body    map[string]any
	raw     string
}

type fakeHooks struct {
	mu   sync.Mutex
	sent []sent
}

func (f *fakeHooks) Send(account string, body []byte) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		panic(err)
	}
	f.mu.Lock()
	f.sent = append(f.sent, sent{account, m, string(body)})
	f.mu.Unlock()
}

func (f *fakeHooks) take() []sent {
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

// handles plays the handle actors: it keeps each handle's memberships and
// following list, and reports the changes as they do (with their diffs).
type handles struct {
	mu        sync.Mutex
	ms        map[string][]Membership
	known     map[string]bool
	following map[string][]protocol.FollowUser
}

func (h *handles) communities(hd string, at int64, cur []protocol.Community) *handle.MembershipsChanged {
	h.mu.Lock()
	defer h.mu.Unlock()
	next, changes := handle.DiffMemberships(h.ms[hd], h.known[hd], cur, at)
	c := &handle.MembershipsChanged{Handle: hd, Changes: changes, Memberships: next, First: !h.known[hd], At: at}
	h.ms[hd], h.known[hd] = next, true
	return c
}

func (h *handles) follows(hd string, at int64, cur []protocol.FollowUser) *handle.FollowsChanged {
	h.mu.Lock()
	defer h.mu.Unlock()
	prev, ok := h.following[hd]
	c := &handle.FollowsChanged{Handle: hd, Following: cur, First: !ok, At: at}
	if ok {
		byID := map[string]protocol.FollowUser{}
		var order []string
		for _, u := range prev {
			byID[u.ID] = u
			order = append(order, u.ID)
		}
		c.Added, c.Removed, c.Renamed = handle.FollowDiff(byID, order, cur)
	}
	h.following[hd] = cur
	return c
}

func (h *handles) memberships(_ context.Context, hs []string) (map[string]handle.MembershipsView, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]handle.MembershipsView{}
	for _, x := range hs {
		out[x] = handle.MembershipsView{Memberships: h.ms[x], Known: h.known[x]}
	}
	return out, nil
}

type rig struct {
	t       *testing.T
	kit     *kit.Kit
	store   *watchtest.Store
	reg     *Registry
	hooks   *fakeHooks
	hub     *delivery.Hub
	handles *handles
	dir     *directory.Directory
	now     time.Time
	tr      *Tracker
}

var base = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func newRig(t *testing.T) *rig {
	r := &rig{t: t, kit: kittest.Quiet(t), store: watchtest.NewStore(), hooks: &fakeHooks{}, hub: delivery.NewHub(),
		handles: &handles{ms: map[string][]Membership{}, known: map[string]bool{}, following: map[string][]protocol.FollowUser{}},
		dir:     directory.New(), now: base}
	r.reg = NewRegistry(r.store, func() time.Time { return base })
	if err := r.reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.start()
	t.Cleanup(func() { r.tr.Stop() })
	return r
}

func (r *rig) start() {
	tr, err := StartTracker(context.Background(), r.kit, &Deps{
		Registry: r.reg, Memberships: r.handles.memberships, Dir: r.dir, Hub: r.hub, Webhooks: r.hooks,
		Persist: syncPersist{}, Store: r.store, Now: func() time.Time { return r.now },
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.tr = tr
}

func (r *rig) add(acct, h string, o TargetOptions) {
	r.t.Helper()
	if _, err := r.reg.Add(context.Background(), acct, h, o, 20); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) socket(acct string, handles ...string) *fakeSock {
	s := &fakeSock{filter: delivery.NewFrameFilter(handles, nil)}
	r.hub.Subscribe(delivery.AccountTopic(protocol.ProductCW, acct), s)
	return s
}

// communities observes handle's membership, detected dAgo before r.now:
// its handle actor tells the tracker what changed.
func (r *rig) communities(h string, dAgo time.Duration, cs ...protocol.Community) {
	r.hear(r.handles.communities(h, r.now.Add(-dAgo).UnixMilli(), cs))
}

func (r *rig) hear(c any) {
	r.tr.Hear(c)
	r.settle()
}

// settle waits until the tracker has handled everything sent before.
func (r *rig) settle() {
	r.t.Helper()
	if _, err := r.tr.States(nil); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) settings(acct string, f func(*Settings)) {
	r.t.Helper()
	if _, err := r.reg.UpdateSettings(context.Background(), acct, func(s *Settings) error { f(s); return nil }); err != nil {
		r.t.Fatal(err)
	}
}

func dataOf(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	d, ok := m["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %v", m)
	}
	return d
}

func keysOf(m map[string]any) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

func TestSyncOnFirstAddThenJoin(t *testing.T) {
	r := newRig(t)
	r.dir.Put(&protocol.UserObs{ID: "42", Handle: "alice"}, base)
	r.add("acct", "alice", TargetOptions{})
	sock := r.socket("acct", "alice")
	a, b, c := comm("1", "Alpha", "first", 10), comm("2", "Beta", "second", 20), comm("3", "Gamma", "third", 30)

	r.communities("alice", time.Second, a, b) // the sync
	if f := sock.take(); len(f) != 0 {
		t.Fatalf("the sync sent frames: %v", f)
	}
	if h := r.hooks.take(); len(h) != 0 {
		t.Fatalf("the sync sent webhooks: %v", h)
	}
	states, _ := r.tr.States([]string{"alice", "nobody"})
	if v, ok := states["alice"]; !ok || !v.Synced || len(v.Communities) != 2 {
		t.Fatalf("alice after sync: %+v", states)
	}
	if _, ok := states["nobody"]; ok {
		t.Fatal("a handle never observed has a state")
	}

	r.communities("alice", 1500*time.Millisecond, a, b, c)
	frames := sock.take()
	if len(frames) != 1 || frames[0]["type"] != "community_change" {
		t.Fatalf("frames after a join: %v", frames)
	}
	d := dataOf(t, frames[0])
	want := []string{"community_id", "community_name", "creator_screen_name", "description", "detected_at",
		"detection_latency_ms", "event_type", "member_count", "screen_name", "social_user_id"}
	if got := keysOf(d); !slices.Equal(got, want) {
		t.Errorf("data keys %v, want %v", got, want)
	}
	if d["event_type"] != "community_joined" || d["screen_name"] != "alice" || d["social_user_id"] != "42" ||
		d["community_id"] != "3" || d["community_name"] != "Gamma" || d["description"] != "third" ||
		d["member_count"] != 30.0 || d["creator_screen_name"] != "founder" {
		t.Errorf("data %v", d)
	}
	if d["detected_at"] != "2026-06-01T12:00:00.000Z" || d["detection_latency_ms"] != 1500.0 {
		t.Errorf("detected_at %v, latency %v; want the tracker's clock and 1500", d["detected_at"], d["detection_latency_ms"])
	}
	hooks := r.hooks.take()
	if len(hooks) != 1 || hooks[0].account != "acct" {
		t.Fatalf("webhooks after a join: %v", hooks)
	}
	h := hooks[0].body
	if got := keysOf(h); !slices.Equal(got, []string{"data", "event", "timestamp"}) {
		t.Errorf("webhook keys %v", got)
	}
	if h["event"] != "community_change" || h["timestamp"] != float64(base.UnixMilli()) {
		t.Errorf("webhook %v", h)
	}
	if fmt.Sprint(dataOf(t, h)) != fmt.Sprint(d) {
		t.Errorf("webhook data %v differs from the frame's %v", dataOf(t, h), d)
	}
	if evs := r.store.Events(protocol.ProductCW); len(evs) != 1 || evs[0].AccountID != "acct" || evs[0].Kind != "community_change" {
		t.Errorf("delivery log %+v", evs)
	}
}

func TestRenameAndDescriptionChange(t *testing.T) {
	r := newRig(t)
	r.add("acct", "bob", TargetOptions{})
	sock := r.socket("acct")
	r.communities("bob", 0, comm("1", "Old", "old desc", 10))
	r.communities("bob", 0, comm("1", "New", "new desc", 10))
	frames := sock.take()
	if len(frames) != 2 {
		t.Fatalf("frames %v, want a rename and a description change", frames)
	}
	ren, desc := dataOf(t, frames[0]), dataOf(t, frames[1])
	if ren["event_type"] != "community_renamed" || ren["old_name"] != "Old" || ren["community_name"] != "New" {
		t.Errorf("rename %v", ren)
	}
	if _, ok := ren["old_description"]; ok {
		t.Errorf("rename carries old_description: %v", ren)
	}
	if desc["event_type"] != "community_description_changed" || desc["old_description"] != "old desc" || desc["description"] != "new desc" {
		t.Errorf("description change %v", desc)
	}
	if _, ok := desc["old_name"]; ok {
		t.Errorf("description change carries old_name: %v", desc)
	}
	if d, _ := dataOf(t, frames[0])["social_user_id"]; d != nil {
		t.Errorf("unknown user: social_user_id %v, want null", d)
	}
	if n := len(r.hooks.take()); n != 2 {
		t.Errorf("%d webhooks, want 2", n)
	}
}

func TestFiltersApplyToWebhooksNotSockets(t *testing.T) {
	r := newRig(t)
	r.add("picky", "carol", TargetOptions{})
	r.add("all", "carol", TargetOptions{})
	r.settings("picky", func(s *Settings) { s.EventTypes = []string{string(Renamed)}; s.MinMemberCount = 100 })
	pickySock := r.socket("picky", "carol")
	r.communities("carol", 0)
	r.communities("carol", 0, comm("1", "Small", "", 5), comm("2", "Big", "", 500))
	if n := len(pickySock.take()); n != 2 {
		t.Errorf("picky socket got %d frames, want both joins (settings do not apply to the WebSocket)", n)
	}
	var to []string
	for _, s := range r.hooks.take() {
		to = append(to, s.account)
	}
	if fmt.Sprint(to) != "[all all]" {
		t.Errorf("webhooks went to %v, want [all all] (picky has joins off)", to)
	}
	r.communities("carol", 0, comm("1", "Small2", "", 5), comm("2", "Big2", "", 500))
	to = nil
	for _, s := range r.hooks.take() {
		to = append(to, s.account+":"+dataOf(t, s.body)["community_id"].(string))
	}
	if fmt.Sprint(to) != "[all:1 all:2 picky:2]" {
		t.Errorf("rename webhooks %v, want [all:1 all:2 picky:2] (the small community is under picky's floor)", to)
	}
}

func TestFlapCooldown(t *testing.T) {
	r := newRig(t)
	r.add("acct", "dave", TargetOptions{})
	r.add("nocool", "dave", TargetOptions{})
	r.settings("acct", func(s *Settings) { s.FlapCooldownSecs = 60 })
	sock := r.socket("acct")
	c := comm("9", "Flappy", "", 50)
	r.communities("dave", 0) // sync: no memberships
	r.communities("dave", 0, c)
	r.now = r.now.Add(20 * time.Second)
	r.communities("dave", 0) // leaves after 20 s: a flap; nothing is sent
	if f := sock.take(); len(f) != 1 {
		t.Fatalf("frames %v, want only the first join", f)
	}
	if n := len(r.hooks.take()); n != 2 {
		t.Fatalf("%d webhooks for the first join, want 2", n)
	}
	r.now = r.now.Add(30 * time.Second)
	r.communities("dave", 0, c) // back 30 s after leaving
	if f := sock.take(); len(f) != 1 || dataOf(t, f[0])["event_type"] != "community_joined" {
		t.Errorf("the WebSocket must get the re-join: %v", f)
	}
	var to []string
	for _, s := range r.hooks.take() {
		to = append(to, s.account)
	}
	if fmt.Sprint(to) != "[nocool]" {
		t.Errorf("re-join webhooks to %v, want [nocool] (acct's cooldown hides the flap)", to)
	}
	// Leave again, and come back after the cooldown: alerted.
	r.now = r.now.Add(10 * time.Second)
	r.communities("dave", 0)
	r.now = r.now.Add(61 * time.Second)
	r.communities("dave", 0, c)
	to = nil
	for _, s := range r.hooks.take() {
		to = append(to, s.account)
	}
	if fmt.Sprint(to) != "[acct nocool]" {
		t.Errorf("late re-join webhooks to %v, want [acct nocool]", to)
	}
}

func TestFollowsAndDigest(t *testing.T) {
	r := newRig(t)
	r.add("follows", "erin", TargetOptions{NewFollowers: true})
	r.add("quiet", "erin", TargetOptions{})
	r.settings("quiet", func(s *Settings) { s.EventTypes = []string{string(Joined)} })
	sock := r.socket("follows")
	name := "Zed"
	following := func(ids ...string) {
		var us []protocol.FollowUser
		for _, id := range ids {
			us = append(us, protocol.FollowUser{ID: id, Handle: "u" + id, Name: &name})
		}
		r.hear(r.handles.follows("erin", r.now.UnixMilli(), us))
	}
	following("1", "2") // baseline
	if h := r.hooks.take(); len(h) != 0 {
		t.Fatalf("baseline sent %v", h)
	}
	following("1", "2", "3")
	hooks := r.hooks.take()
	if len(hooks) != 1 || hooks[0].account != "follows" || hooks[0].body["event"] != "follow_change" {
		t.Fatalf("follow webhooks %v, want one follow_change to follows", hooks)
	}
	d := dataOf(t, hooks[0].body)
	f, _ := d["followed"].(map[string]any)
	if d["event_type"] != "account_followed" || d["screen_name"] != "erin" || f["id"] != "3" || f["screen_name"] != "u3" || f["name"] != "Zed" {
		t.Errorf("follow data %v", d)
	}
	if fr := sock.take(); len(fr) != 0 {
		t.Errorf("follows went to the WebSocket: %v", fr)
	}
	r.hear(&handle.FollowersAdded{Handle: "erin", At: r.now.UnixMilli(),
		Users: []protocol.NewFollower{{ID: "7", Handle: "fan"}, {ID: "8", Handle: "fan2"}}})
	hooks = r.hooks.take()
	if len(hooks) != 1 || hooks[0].account != "follows" || hooks[0].body["event"] != "new_followers" {
		t.Fatalf("digest webhooks %v, want one new_followers to follows", hooks)
	}
	d = dataOf(t, hooks[0].body)
	if d["count"] != 2.0 || len(d["followers"].([]any)) != 2 {
		t.Errorf("digest data %v", d)
	}
	if fr := sock.take(); len(fr) != 0 {
		t.Errorf("the digest went to the WebSocket: %v", fr)
	}
	if n := len(r.store.Events(protocol.ProductCW)); n != 2 {
		t.Errorf("%d deliveries logged, want 2", n)
	}
}

func TestRestartKeepsStateAndUnwatchForgets(t *testing.T) {
	r := newRig(t)
	r.add("acct", "fay", TargetOptions{})
	a, b := comm("1", "A", "", 1), comm("2", "B", "", 2)
	r.communities("fay", 0, a)
	if _, ok := r.store.State(protocol.ProductCW, "fay"); !ok {
		t.Fatal("the sync was not persisted")
	}
	r.tr.Stop()
	r.start() // a restart over the same store
	r.communities("fay", 0, a, b)
	if h := r.hooks.take(); len(h) != 1 || dataOf(t, h[0].body)["community_id"] != "2" {
		t.Fatalf("after a restart the join must alert (no second sync): %v", h)
	}
	// Removing the last watcher forgets the handle; adding it back syncs anew.
	if err := r.reg.Remove(context.Background(), "acct", "fay"); err != nil {
		t.Fatal(err)
	}
	r.tr.Unwatch("fay")
	r.settle()
	if _, ok := r.store.State(protocol.ProductCW, "fay"); ok {
		t.Fatal("state kept after the last watcher left")
	}
	r.add("acct", "fay", TargetOptions{})
	r.communities("fay", 0, a, b, comm("3", "C", "", 3))
	if h := r.hooks.take(); len(h) != 0 {
		t.Fatalf("re-adding must sync again without alerts: %v", h)
	}
}

func TestUnwatchedIgnored(t *testing.T) {
	r := newRig(t)
	r.communities("ghost", 0, comm("1", "A", "", 1))
	r.communities("ghost", 0, comm("2", "B", "", 1))
	if _, ok := r.store.State(protocol.ProductCW, "ghost"); ok {
		t.Fatal("an unwatched handle got a state")
	}
	if h := r.hooks.take(); len(h) != 0 {
		t.Errorf("an unwatched handle sent webhooks: %v", h)
	}
	if states, _ := r.tr.States([]string{"ghost"}); len(states) != 0 {
		t.Errorf("an unwatched handle has a state: %v", states)
	}
}

// TestKnownBeforeTheSync: a handle whose memberships the handle actor knew
// (with join times) before Community Watch watched it syncs like any
// other: its memberships show no join time, and one that leaves and comes
// back is not a flap (its first join was never alerted).
func TestKnownBeforeTheSync(t *testing.T) {
	r := newRig(t)
	a, b := comm("1", "A", "", 1), comm("2", "B", "", 1)
	r.communities("ivy", time.Hour)
	r.communities("ivy", 30*time.Minute, a) // joined while nobody watched
	r.add("acct", "ivy", TargetOptions{})
	r.settings("acct", func(s *Settings) { s.FlapCooldownSecs = 3600 })
	r.communities("ivy", 0, a) // the sync
	states, _ := r.tr.States([]string{"ivy"})
	if v := states["ivy"]; !v.Synced || len(v.Communities) != 1 || v.Communities[0].JoinedAt != 0 {
		t.Fatalf("view after the sync %+v: the join predates it", v)
	}
	r.communities("ivy", 0, b)    // a leaves, b joins
	r.communities("ivy", 0, a, b) // a is back within the cooldown
	var got []string
	for _, s := range r.hooks.take() {
		got = append(got, dataOf(t, s.body)["community_id"].(string))
	}
	if fmt.Sprint(got) != "[2 1]" {
		t.Errorf("webhooks about %v, want [2 1]: a membership from before the sync never counts as a flap", got)
	}
	states, _ = r.tr.States([]string{"ivy"})
	if v := states["ivy"]; len(v.Communities) != 2 || v.Communities[0].JoinedAt != base.UnixMilli() {
		t.Errorf("view after the rejoin %+v: the rejoin has a join time", v)
	}
}

// TestOnlyOwnStateIsWritten: the tracker writes its own state (the sync,
// what predates it, the leaves), not the memberships, which the handle
// actors keep: a member count or a rename writes nothing, a leave does.
func TestOnlyOwnStateIsWritten(t *testing.T) {
	r := newRig(t)
	r.add("acct", "hal", TargetOptions{})
	r.communities("hal", 0, comm("1", "A", "", 10))
	before, _ := r.store.State(protocol.ProductCW, "hal")
	r.now = r.now.Add(time.Minute)
	r.communities("hal", 0, comm("1", "A", "", 11))
	after, _ := r.store.State(protocol.ProductCW, "hal")
	if !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("a member count change was written")
	}
	states, _ := r.tr.States([]string{"hal"})
	if states["hal"].Communities[0].MemberCount != 11 {
		t.Errorf("the new member count is not kept in memory: %+v", states["hal"])
	}
	r.communities("hal", 0, comm("1", "B", "", 11))
	if after, _ = r.store.State(protocol.ProductCW, "hal"); !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("a rename was written")
	}
	r.now = r.now.Add(time.Minute)
	r.communities("hal", 0)
	if after, _ = r.store.State(protocol.ProductCW, "hal"); after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("a leave was not written")
	}
}
