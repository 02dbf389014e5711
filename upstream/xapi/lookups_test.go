package xapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/upstream/xapi/xapifake"
	"github.com/jonboulle/clockwork"
)

type lookupRig struct {
	fake    *xapifake.Server
	clock   *clockwork.FakeClock
	sink    *chanSink
	lk      *lookups
	handles *handleSet
	stats   *Stats
}

// newLookupRig starts the users loop or the following loop (or neither).
func newLookupRig(t *testing.T, ctx context.Context, users, following bool, hs ...string) *lookupRig {
	t.Helper()
	clock := clockwork.NewFakeClockAt(testStart) // the fake's rate-limit windows run on the same clock
	r := &lookupRig{fake: xapifake.New(xapifake.Options{Clock: clock}),
		clock: clock, sink: newChanSink(), handles: newHandleSet(hs...), stats: &Stats{}}
	seed(r.fake)
	base := r.fake.Start()
	t.Cleanup(r.fake.Close)
	em := newEmitter(r.sink, r.clock, r.stats, quietLog())
	// The handle set's change signal goes to the one loop that runs (no test
	// runs both): a following loop that first looked before the test set
	// its handles must hear the change, or it waits for good.
	if users && following {
		t.Fatal("newLookupRig runs one loop at a time")
	}
	usersChanged, followChanged := r.handles.ch, make(chan struct{})
	if following {
		usersChanged, followChanged = make(chan struct{}), r.handles.ch
	}
	r.lk = &lookups{c: testClient(r.fake, base, r.clock, r.stats), handles: r.handles, usersChanged: usersChanged,
		followChanged: followChanged, clock: r.clock, profileEvery: 15 * time.Minute, followingEvery: time.Hour,
		emit: em, stats: r.stats, log: quietLog()}
	r.lk.init()
	ctx, cancel := context.WithCancel(ctx)
	var loops []func(context.Context)
	loops = append(loops, em.run)
	if users {
		loops = append(loops, r.lk.runUsers)
	}
	if following {
		loops = append(loops, r.lk.runFollowing)
	}
	done := make(chan struct{}, len(loops))
	for _, f := range loops {
		go func() { f(ctx); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		for range loops {
			<-done
		}
	})
	return r
}

func TestPendingHandleResolvedByUsername(t *testing.T) {
	ctx := ctxT(t)
	r := newLookupRig(t, ctx, true, false, "degenmike", "nobody_here", "solwhale")
	got := map[string]string{}
	for range 2 {
		o := r.sink.next(t, ctx)
		if o.User == nil {
			t.Fatalf("got %s", o.Kind)
		}
		got[o.User.Handle] = jsonOf(o.User)
	}
	want := `{"id":"744628103955443712","handle":"solwhale","name":"Sol Whale","bio":"on-chain since 2017",` +
		`"avatar":"https://pbs.twimg.com/profile_images/1/whale_normal.jpg","banner_url":"https://pbs.twimg.com/profile_banners/1/1",` +
		`"location":"Lisbon","website":"https://t.co/abc","followers":48210,"following":311,"verified":true,"verification_type":"blue",` +
		`"pinned_post":["1859990001112223334"],"categories":[],"suspended":false}`
	if got["solwhale"] != want {
		t.Errorf("user:\n got %s\nwant %s", got["solwhale"], want)
	}
	if _, ok := got["degenmike"]; !ok {
		t.Errorf("degenmike not resolved: %v", got)
	}
	calls := r.fake.Calls(xapifake.EpUsersBy)
	if len(calls) != 1 || !strings.Contains(calls[0].Path, "usernames=degenmike%2Cnobody_here%2Csolwhale") {
		t.Fatalf("calls %+v", calls)
	}
	// A handle added later is resolved at once, without asking again for the others.
	r.fake.AddUser(xapifake.User{ID: "3333", Username: "newfan01", Name: "New Fan"})
	r.handles.Set("degenmike", "newfan01", "nobody_here", "solwhale")
	if o := r.sink.next(t, ctx); o.User == nil || o.User.Handle != "newfan01" {
		t.Fatalf("got %+v", o)
	}
	if calls := r.fake.Calls(xapifake.EpUsersBy); len(calls) != 2 || !strings.HasPrefix(calls[1].Path, "/2/users/by?usernames=newfan01&") {
		t.Fatalf("calls %+v", calls)
	}
}

func TestProfilesReReadInBatchesOf100(t *testing.T) {
	ctx := ctxT(t)
	var hs []string
	r := newLookupRig(t, ctx, true, false)
	for i := range 250 {
		h := fmt.Sprintf("acct%03d", i)
		r.fake.AddUser(xapifake.User{ID: fmt.Sprint(5000 + i), Username: h, Name: h})
		hs = append(hs, h)
	}
	r.handles.Set(hs...)
	for range 250 {
		r.sink.next(t, ctx)
	}
	if n := len(r.fake.Calls(xapifake.EpUsersBy)); n != 3 {
		t.Fatalf("%d lookups for 250 handles", n)
	}
	if err := r.clock.BlockUntilContext(ctx, 1); err != nil { // waiting for the profile schedule
		t.Fatal(err)
	}
	r.clock.Advance(15 * time.Minute)
	for range 250 {
		if o := r.sink.next(t, ctx); o.User == nil {
			t.Fatalf("got %s", o.Kind)
		}
	}
	calls := r.fake.Calls(xapifake.EpUsers)
	if len(calls) != 3 {
		t.Fatalf("%d re-reads", len(calls))
	}
	for i, c := range calls {
		ids := strings.Split(strings.SplitN(strings.TrimPrefix(c.Path, "/2/users?ids="), "&", 2)[0], ",")
		if want := []int{100, 100, 50}[i]; len(ids) != want {
			t.Errorf("re-read %d asked for %d ids, want %d", i, len(ids), want)
		}
	}
}

func TestRenameSeenOnReRead(t *testing.T) {
	ctx := ctxT(t)
	r := newLookupRig(t, ctx, true, false, "degenmike")
	r.sink.next(t, ctx)
	renamed := mike
	renamed.Username = "mike_v2"
	r.fake.AddUser(renamed)
	if err := r.clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(15 * time.Minute)
	if o := r.sink.next(t, ctx); o.User == nil || o.User.Handle != "mike_v2" || o.User.ID != mike.ID {
		t.Fatalf("got %+v", o.User)
	}
}

func TestFollowingListWholeAcrossPages(t *testing.T) {
	ctx := ctxT(t)
	r := newLookupRig(t, ctx, false, false)
	big := whale
	big.FollowingIDs = nil
	for i := range 2500 {
		id := fmt.Sprint(900000 + i)
		r.fake.AddUser(xapifake.User{ID: id, Username: fmt.Sprintf("f%05d", i), Name: "F"})
		big.FollowingIDs = append(big.FollowingIDs, id)
	}
	r.fake.AddUser(big)
	if err := r.lk.readFollowing(ctx, "solwhale", whale.ID); err != nil {
		t.Fatal(err)
	}
	o := r.sink.next(t, ctx)
	if o.Following == nil || o.Following.Handle != "solwhale" || len(o.Following.Users) != 2500 || o.Following.Users[2499].Handle != "f02499" {
		t.Fatalf("got %s with %d users", o.Kind, len(o.Following.Users))
	}
	if n := len(r.fake.Calls(xapifake.EpFollowing)); n != 3 {
		t.Fatalf("%d pages", n)
	}
}

func TestNoFollowingCallBeforeTheReset(t *testing.T) {
	ctx := ctxT(t)
	r := newLookupRig(t, ctx, false, true)
	r.lk.ids["solwhale"] = whale.ID // resolved earlier
	r.fake.SpendBudget(xapifake.EpFollowing, 5*time.Minute)
	r.handles.SetMonitored(Monitored{Handle: "solwhale", Following: true})
	waitFor(t, ctx, "the first following call", func() bool { return len(r.fake.Calls(xapifake.EpFollowing)) == 1 })
	if err := r.clock.BlockUntilContext(ctx, 1); err != nil { // the limiter holds the retry
		t.Fatal(err)
	}
	r.clock.Advance(5*time.Minute - time.Second)
	if n := len(r.fake.Calls(xapifake.EpFollowing)); n != 1 {
		t.Fatalf("%d calls before the reset", n)
	}
	r.clock.Advance(time.Second)
	o := r.sink.next(t, ctx)
	if o.Following == nil || len(o.Following.Users) != 2 {
		t.Fatalf("got %+v", o)
	}
	calls := r.fake.Calls(xapifake.EpFollowing)
	if calls[0].Status != 429 || calls[1].Status != 200 || calls[1].At.Before(testStart.Add(5*time.Minute)) {
		t.Fatalf("calls %+v", calls)
	}
	if w := r.stats.RateLimitWaits.Load(); w != 1 {
		t.Fatalf("rate-limit waits %d", w)
	}
}

func TestFollowingSharedFairly(t *testing.T) {
	ctx := ctxT(t)
	r := newLookupRig(t, ctx, false, false)
	r.lk.ids = map[string]string{"a": "1", "b": "2", "c": "3"}
	r.handles.SetMonitored(Monitored{"a", true}, Monitored{"b", true}, Monitored{"c", true}, Monitored{"d", false})
	now := r.clock.Now()
	last := map[string]time.Time{"a": now.Add(-2 * time.Hour), "b": now.Add(-3 * time.Hour)}
	if h, _, _ := r.lk.nextFollowing(last); h != "c" { // never read first
		t.Fatalf("picked %s", h)
	}
	last["c"] = now
	if h, _, _ := r.lk.nextFollowing(last); h != "b" { // then the longest waiting
		t.Fatalf("picked %s", h)
	}
	last["a"], last["b"] = now, now
	h, _, next := r.lk.nextFollowing(last)
	if h != "" || !next.Equal(now.Add(time.Hour)) {
		t.Fatalf("picked %q, next %v", h, next)
	}
}
