package targets

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
)

type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) TargetAdded(a, h string) {
	r.mu.Lock()
	r.log = append(r.log, "+"+a+"/"+h)
	r.mu.Unlock()
}

func (r *recorder) TargetRemoved(a, h string) {
	r.mu.Lock()
	r.log = append(r.log, "-"+a+"/"+h)
	r.mu.Unlock()
}

func (r *recorder) heard() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// faultyStore is the embedded store with WriteTargets that fails on demand
// (fail returns the error to give, or nil) and can be held at its start
// (entered and release).
type faultyStore struct {
	persistence.Store
	mu      sync.Mutex
	fail    func(put []persistence.Target, del []persistence.TargetKey) error
	entered chan struct{} // when set, WriteTargets sends on it, then waits for release
	release chan struct{}
}

func (s *faultyStore) WriteTargets(ctx context.Context, put []persistence.Target, del []persistence.TargetKey) ([]persistence.Target, error) {
	s.mu.Lock()
	fail, entered, release := s.fail, s.entered, s.release
	s.mu.Unlock()
	if entered != nil {
		entered <- struct{}{}
		<-release
	}
	if fail != nil {
		if err := fail(put, del); err != nil {
			return nil, err
		}
	}
	return s.Store.WriteTargets(ctx, put, del)
}

func (s *faultyStore) setFail(f func([]persistence.Target, []persistence.TargetKey) error) {
	s.mu.Lock()
	s.fail = f
	s.mu.Unlock()
}

// hold makes the next WriteTargets calls stop at their start until release
// is closed; entered receives one value per call that reached it.
func (s *faultyStore) hold() (entered chan struct{}, release chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entered, s.release = make(chan struct{}), make(chan struct{})
	return s.entered, s.release
}

func (s *faultyStore) unhold() {
	s.mu.Lock()
	s.entered, s.release = nil, nil
	s.mu.Unlock()
}

var errDown = errors.New("store down")

var quiet = slog.New(slog.DiscardHandler)

var testNow = func() time.Time { return time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC) }

// newRegistry returns a loaded registry over a fresh embedded store with
// accounts acct1, a, b, c and d, its listener, and a function that loads a
// second registry from the same store (what a restart would see).
func newRegistry(t *testing.T) (*Registry, *recorder, *faultyStore, func() *Registry) {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, a := range []string{"acct1", "a", "b", "c", "d"} {
		if _, err := st.CreateAccount(context.Background(), a, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	fs := &faultyStore{Store: st}
	rec := &recorder{}
	r := NewRegistry(fs, rec, testNow, WithRetry(time.Millisecond, 10*time.Millisecond), WithLogger(quiet))
	t.Cleanup(r.Close)
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	reload := func() *Registry {
		t.Helper()
		r2 := NewRegistry(st, nil, testNow)
		t.Cleanup(r2.Close)
		if err := r2.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		return r2
	}
	return r, rec, fs, reload
}

func mustFlush(t *testing.T, r *Registry) {
	t.Helper()
	if err := r.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// snapshot describes every target of accounts, for comparing registries.
func snapshot(r *Registry, accounts ...string) string {
	var out []string
	for _, a := range accounts {
		for _, t := range r.List(a) {
			id := "-"
			if t.SocialUserID != nil {
				id = *t.SocialUserID
			}
			out = append(out, fmt.Sprintf("%s/%s id=%d user=%s name=%q active=%v", a, t.Handle, t.ID, id, t.DisplayName, t.IsActive))
		}
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}

func TestRegistryAddRemoveLimit(t *testing.T) {
	ctx := context.Background()
	r, rec, _, reload := newRegistry(t)
	id := "42"
	got, err := r.Add(ctx, "acct1", "alpha", "Alpha", &id, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == 0 || got.Handle != "alpha" || got.SocialUserID == nil || !got.IsActive || !got.CreatedAt.Equal(testNow()) {
		t.Errorf("Add returned %+v", got)
	}
	if _, err := r.Add(ctx, "acct1", "beta", "", nil, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(ctx, "acct1", "alpha", "", nil, 2); !errors.Is(err, ErrExists) {
		t.Fatalf("second add: %v, want ErrExists", err)
	}
	if _, err := r.Add(ctx, "acct1", "gamma", "", nil, 2); !errors.Is(err, ErrLimit) {
		t.Fatalf("third handle: %v, want ErrLimit", err)
	}
	if err := r.Remove(ctx, "acct1", "zzz"); !errors.Is(err, ErrNotTracked) {
		t.Fatalf("remove unknown: %v", err)
	}
	if err := r.Remove(ctx, "acct1", "alpha"); err != nil {
		t.Fatal(err)
	}
	if got := r.ActiveHandles("acct1"); !slices.Equal(got, []string{"beta"}) {
		t.Fatalf("ActiveHandles %v", got)
	}
	if all, active := r.Counts("acct1"); all != 1 || active != 1 {
		t.Errorf("Counts = %d, %d", all, active)
	}
	if want := []string{"+acct1/alpha", "+acct1/beta", "-acct1/alpha"}; !slices.Equal(rec.heard(), want) {
		t.Errorf("listener heard %v, want %v", rec.heard(), want)
	}
	// Add and Remove are durable when they return: no Flush before reloading.
	if got, want := snapshot(reload(), "acct1"), snapshot(r, "acct1"); got != want {
		t.Errorf("after reload:\n got %s\nwant %s", got, want)
	}
}

// TestRegistryKeepsTypedSpelling: a handle added as the customer typed it
// (`@Whale_Alert`) is the target of its key and lists that spelling, through
// a reload; the same key in another case is the same target; a rename shows
// the new handle.
func TestRegistryKeepsTypedSpelling(t *testing.T) {
	ctx := context.Background()
	r, _, _, reload := newRegistry(t)
	got, err := r.Add(ctx, "a", " @Whale_Alert", "", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got.Handle != "whale_alert" || got.ScreenName != "Whale_Alert" || got.ShownName() != "Whale_Alert" {
		t.Fatalf("Add returned %+v, want key whale_alert shown as Whale_Alert", got)
	}
	if _, err := r.Add(ctx, "a", "WHALE_ALERT", "", nil, 10); !errors.Is(err, ErrExists) {
		t.Fatalf("the key in another case: %v, want ErrExists", err)
	}
	if tg, ok := reload().Get("a", "whale_alert"); !ok || tg.ShownName() != "Whale_Alert" {
		t.Fatalf("after reload %+v", tg)
	}
	r.Rename("whale_alert", "whale_new", "77")
	if tg, ok := r.Get("a", "whale_new"); !ok || tg.ShownName() != "whale_new" {
		t.Fatalf("after a rename %+v, want the new handle shown", tg)
	}
}

// TestRegistryReactivate: a paused target (is_active false in the store) is
// reactivated by Add, keeping its id, and counts toward the ceiling again.
func TestRegistryReactivate(t *testing.T) {
	ctx := context.Background()
	r0, _, fs, _ := newRegistry(t)
	saved, err := fs.PutTarget(ctx, persistence.Target{AccountID: "a", Handle: "sleepy", CreatedAt: testNow()})
	if err != nil {
		t.Fatal(err)
	}
	r0.Close()
	r := NewRegistry(fs, nil, testNow)
	defer r.Close()
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := r.ActiveHandles("a"); len(got) != 0 {
		t.Fatalf("paused target is active: %v", got)
	}
	if all, active := r.Counts("a"); all != 1 || active != 0 {
		t.Fatalf("Counts = %d, %d", all, active)
	}
	id := "5"
	got, err := r.Add(ctx, "a", "sleepy", "Sleepy", &id, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != saved.ID || !got.IsActive || got.SocialUserID == nil || *got.SocialUserID != "5" {
		t.Errorf("reactivated %+v, want id %d, active, user 5", got, saved.ID)
	}
	if _, err := r.Add(ctx, "a", "other", "", nil, 1); !errors.Is(err, ErrLimit) {
		t.Errorf("past the ceiling: %v", err)
	}
}

// TestRegistryResolve: pending targets of a handle take the user's id and
// name in memory at once, and in the store after Flush.
func TestRegistryResolve(t *testing.T) {
	ctx := context.Background()
	r, _, _, reload := newRegistry(t)
	for _, a := range []string{"a", "b"} {
		if _, err := r.Add(ctx, a, "whale", "", nil, 10); err != nil {
			t.Fatal(err)
		}
	}
	other := "9"
	if _, err := r.Add(ctx, "c", "whale", "Old Whale", &other, 10); err != nil {
		t.Fatal(err)
	}
	r.Resolve("whale", "77", "Whale")
	for _, a := range []string{"a", "b"} {
		if tg, _ := r.Get(a, "whale"); tg.SocialUserID == nil || *tg.SocialUserID != "77" || tg.DisplayName != "Whale" {
			t.Errorf("%s: %+v not resolved", a, tg)
		}
	}
	if tg, _ := r.Get("c", "whale"); *tg.SocialUserID != "9" || tg.DisplayName != "Old Whale" {
		t.Errorf("c's target, tied to another user, changed: %+v", tg)
	}
	mustFlush(t, r)
	if got, want := snapshot(reload(), "a", "b", "c"), snapshot(r, "a", "b", "c"); got != want {
		t.Errorf("after reload:\n got %s\nwant %s", got, want)
	}
}

// TestRegistryRename: targets of a renamed account move to the new handle
// (in memory at once, in the store after Flush); targets of the old handle
// that belong to another user stay; an account tracking both keeps one
// target.
func TestRegistryRename(t *testing.T) {
	ctx := context.Background()
	r, _, _, reload := newRegistry(t)
	uid, other := "1001", "2002"
	mustAdd := func(acct, h string, id *string) {
		t.Helper()
		if _, err := r.Add(ctx, acct, h, "", id, 10); err != nil {
			t.Fatal(err)
		}
	}
	mustAdd("a", "old", &uid)   // moves
	mustAdd("b", "old", nil)    // pending: moves and resolves
	mustAdd("c", "old", &other) // another account had this handle: stays
	mustAdd("d", "old", &uid)
	mustAdd("d", "new", nil) // already tracks the new handle: the old one goes
	mustAdd("a", "keep", nil)
	before, _ := r.Get("a", "old")

	r.Rename("old", "new", uid)
	check := func(reg *Registry) {
		t.Helper()
		if got := reg.ActiveHandles("a"); !slices.Equal(got, []string{"new", "keep"}) && !slices.Equal(got, []string{"keep", "new"}) {
			t.Errorf("a: %v", got)
		}
		if got := reg.ActiveHandles("b"); !slices.Equal(got, []string{"new"}) {
			t.Errorf("b: %v", got)
		}
		if tg, ok := reg.Get("b", "new"); !ok || tg.SocialUserID == nil || *tg.SocialUserID != uid {
			t.Errorf("b's moved target %+v: want social_user_id %s", tg, uid)
		}
		if got := reg.ActiveHandles("c"); !slices.Equal(got, []string{"old"}) {
			t.Errorf("c: %v", got)
		}
		if got := reg.ActiveHandles("d"); !slices.Equal(got, []string{"new"}) {
			t.Errorf("d: %v", got)
		}
	}
	check(r)
	mustFlush(t, r)
	r2 := reload()
	check(r2)
	if got, want := snapshot(r2, "a", "b", "c", "d"), snapshot(r, "a", "b", "c", "d"); got != want {
		t.Errorf("after reload:\n got %s\nwant %s", got, want)
	}
	after, _ := r.Get("a", "new")
	if !after.CreatedAt.Equal(before.CreatedAt) {
		t.Errorf("created_at changed on rename: %v -> %v", before.CreatedAt, after.CreatedAt)
	}
	r.Rename("new", "new", uid) // to itself: nothing
	if got := snapshot(r, "a", "b", "c", "d"); got != snapshot(r2, "a", "b", "c", "d") {
		t.Errorf("rename to itself changed %s", got)
	}
}

// TestRegistryRepeatsLostRename: the store lost a rename (a crash between
// memory and store) and the directory already has the new handle, so no
// rename is observed again; the next Resolve of the user moves the target,
// and folds a target left twice.
func TestRegistryRepeatsLostRename(t *testing.T) {
	ctx := context.Background()
	r0, _, fs, reload := newRegistry(t)
	r0.Close()
	uid := "1001"
	for _, tg := range []persistence.Target{
		{AccountID: "a", Handle: "old", SocialUserID: &uid, IsActive: true, CreatedAt: testNow()},
		{AccountID: "b", Handle: "old", SocialUserID: &uid, IsActive: true, CreatedAt: testNow()},
		{AccountID: "b", Handle: "new", SocialUserID: &uid, IsActive: true, CreatedAt: testNow()},
		{AccountID: "c", Handle: "elsewhere", SocialUserID: &uid, IsActive: true, CreatedAt: testNow()},
	} {
		if _, err := fs.PutTarget(ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	r := reload()
	r.Resolve("new", uid, "New")
	for _, a := range []string{"a", "b", "c"} {
		if got := r.ActiveHandles(a); !slices.Equal(got, []string{"new"}) {
			t.Errorf("%s: %v, want [new]", a, got)
		}
	}
	mustFlush(t, r)
	if got, want := snapshot(reload(), "a", "b", "c"), snapshot(r, "a", "b", "c"); got != want {
		t.Errorf("after reload:\n got %s\nwant %s", got, want)
	}
}

// TestRegistryReadsDoNotWaitForStore: while a write is held inside the
// store, reads, Resolve, Rename and an add over the ceiling all answer (if
// any of them waited for the store, the test would hang); the held add is
// not visible until committed, and a second add of the same handle is
// refused once the first commits.
func TestRegistryReadsDoNotWaitForStore(t *testing.T) {
	ctx := context.Background()
	r, rec, fs, _ := newRegistry(t)
	entered, release := fs.hold()
	first := make(chan error, 1)
	go func() {
		_, err := r.Add(ctx, "a", "held", "", nil, 1)
		first <- err
	}()
	<-entered
	if _, ok := r.Get("a", "held"); ok {
		t.Error("a target is visible before its row is committed")
	}
	if got := r.ActiveHandles("a"); len(got) != 0 {
		t.Errorf("ActiveHandles = %v before the commit", got)
	}
	if got := r.List("a"); len(got) != 0 {
		t.Errorf("List = %v before the commit", got)
	}
	if _, err := r.Add(ctx, "a", "second", "", nil, 1); !errors.Is(err, ErrLimit) {
		t.Errorf("add past the ceiling while one is in flight: %v, want ErrLimit", err)
	}
	r.Resolve("held", "5", "Held") // the add in flight takes the user id
	r.Rename("x", "y", "6")
	second := make(chan error, 1)
	go func() {
		_, err := r.Add(ctx, "a", "held", "", nil, 1)
		second <- err
	}()
	fs.unhold()
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("held add: %v", err)
	}
	if err := <-second; !errors.Is(err, ErrExists) {
		t.Errorf("concurrent add of the same handle: %v, want ErrExists", err)
	}
	if tg, ok := r.Get("a", "held"); !ok || tg.SocialUserID == nil || *tg.SocialUserID != "5" {
		t.Errorf("after commit: %+v, %v", tg, ok)
	}
	if want := []string{"+a/held"}; !slices.Equal(rec.heard(), want) {
		t.Errorf("listener heard %v, want %v", rec.heard(), want)
	}
}

// TestRegistryStoreFails: a failed add or remove is rolled back and
// reported; a failed background write is retried until the store is back.
func TestRegistryStoreFails(t *testing.T) {
	ctx := context.Background()
	r, rec, fs, reload := newRegistry(t)
	if _, err := r.Add(ctx, "a", "kept", "", nil, 2); err != nil {
		t.Fatal(err)
	}
	fs.setFail(func([]persistence.Target, []persistence.TargetKey) error { return errDown })
	if _, err := r.Add(ctx, "a", "lost", "", nil, 2); !errors.Is(err, errDown) {
		t.Fatalf("Add with the store down: %v, want %v", err, errDown)
	}
	if _, ok := r.Get("a", "lost"); ok {
		t.Error("a failed add is visible")
	}
	if err := r.Remove(ctx, "a", "kept"); !errors.Is(err, errDown) {
		t.Fatalf("Remove with the store down: %v", err)
	}
	if got := r.ActiveHandles("a"); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("after failures: %v", got)
	}
	r.Resolve("kept", "8", "Kept")
	if err := r.Flush(ctx); !errors.Is(err, errDown) {
		t.Errorf("Flush with the store down: %v", err)
	}
	if tg, _ := r.Get("a", "kept"); tg.SocialUserID == nil {
		t.Error("Resolve waits for the store")
	}
	fs.setFail(nil)
	mustFlush(t, r)
	// The ceiling counts no phantom from the failed add.
	if _, err := r.Add(ctx, "a", "later", "", nil, 2); err != nil {
		t.Fatalf("add after the store came back: %v", err)
	}
	if want := []string{"+a/kept", "+a/later"}; !slices.Equal(rec.heard(), want) {
		t.Errorf("listener heard %v, want %v", rec.heard(), want)
	}
	if got, want := snapshot(reload(), "a"), snapshot(r, "a"); got != want {
		t.Errorf("after reload:\n got %s\nwant %s", got, want)
	}
}

// TestRegistryBatchFailsKeyByKey: one bad row fails its batch; the others
// of the batch are written one by one and succeed.
func TestRegistryBatchFailsKeyByKey(t *testing.T) {
	ctx := context.Background()
	r, _, fs, reload := newRegistry(t)
	entered, release := fs.hold()
	first := make(chan error, 1)
	go func() { // the round that holds the store
		_, err := r.Add(ctx, "a", "first", "", nil, 10)
		first <- err
	}()
	<-entered
	// Reserved while the first round writes: both go in the next round.
	good, _, err := r.reserveAdd(ctx, "a", "good", "", "", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	bad, _, err := r.reserveAdd(ctx, "nobody", "bad", "", "", nil, 10) // no such account: its row fails
	if err != nil {
		t.Fatal(err)
	}
	var batches []int
	fs.setFail(func(put []persistence.Target, del []persistence.TargetKey) error {
		batches = append(batches, len(put)+len(del)) // only the committer calls it
		return nil
	})
	fs.unhold()
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	r.poke()
	if _, err := r.wait(ctx, good); err != nil {
		t.Errorf("the good add of a failed batch: %v", err)
	}
	if _, err := r.wait(ctx, bad); err == nil {
		t.Error("the bad add succeeded")
	}
	if !slices.Equal(batches[:3], []int{2, 1, 1}) {
		t.Errorf("writes of %v keys, want a batch of 2 then 1 and 1", batches)
	}
	if got := r.ActiveHandles("a"); !slices.Equal(got, []string{"first", "good"}) {
		t.Errorf("a: %v", got)
	}
	if got := r.ActiveHandles("nobody"); len(got) != 0 {
		t.Errorf("nobody: %v", got)
	}
	if got, want := snapshot(reload(), "a"), snapshot(r, "a"); got != want {
		t.Errorf("after reload:\n got %s\nwant %s", got, want)
	}
}

func TestRegistryClose(t *testing.T) {
	ctx := context.Background()
	r, _, _, reload := newRegistry(t)
	if _, err := r.Add(ctx, "a", "whale", "", nil, 10); err != nil {
		t.Fatal(err)
	}
	r.Resolve("whale", "3", "Whale")
	r.Close()
	if got, want := snapshot(reload(), "a"), snapshot(r, "a"); got != want {
		t.Errorf("Close did not write what was dirty:\n got %s\nwant %s", got, want)
	}
	if _, err := r.Add(ctx, "a", "late", "", nil, 10); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	if err := r.Remove(ctx, "a", "whale"); !errors.Is(err, ErrClosed) {
		t.Errorf("Remove after Close: %v", err)
	}
	r.Close() // twice is fine
}

// TestRegistryConcurrent: adds, removes, resolves and renames from many
// goroutines, over a store that fails one write in four, never pass the
// ceiling, keep the registry's books straight, and once the store is back
// and the registry flushed, memory and store agree.
func TestRegistryConcurrent(t *testing.T) {
	ctx := context.Background()
	r, _, fs, reload := newRegistry(t)
	var calls atomic.Int64
	fs.setFail(func([]persistence.Target, []persistence.TargetKey) error {
		if calls.Add(1)%4 == 0 {
			return errDown
		}
		return nil
	})
	accounts := []string{"a", "b", "c", "d"}
	handles := []string{"h0", "h1", "h2", "h3", "h4", "h5"}
	users := []string{"u1", "u2", "u3"}
	const max = 3
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, a := range accounts {
				if _, active := r.Counts(a); active > max {
					t.Errorf("%s has %d active targets, ceiling %d", a, active, max)
				}
				_ = r.ActiveHandles(a)
			}
			runtime.Gosched()
		}
	}()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range 300 {
				randomChange(t, ctx, r, rng, rng.IntN(6), accounts, handles, users, max)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-readerDone
	checkBooks(t, r)
	fs.setFail(nil)
	mustFlush(t, r)
	checkBooks(t, r)
	if got, want := snapshot(reload(), accounts...), snapshot(r, accounts...); got != want {
		t.Errorf("store and memory differ after flush:\n store  %s\n memory %s", got, want)
	}
}

// checkBooks recounts the registry's indexes from its entries.
func checkBooks(t *testing.T, r *Registry) {
	t.Helper()
	r.mu.RLock()
	defer r.mu.RUnlock()
	unresolved := map[string]int{}
	n := 0
	for id, a := range r.accounts {
		active := 0
		for _, e := range a.order {
			n++
			if e.counts() {
				active++
			}
			if e.t.AccountID != id || r.at[e.t.Handle][id] != e {
				t.Errorf("%s/%s is not indexed", id, e.t.Handle)
			}
			if e.t.SocialUserID == nil {
				unresolved[e.t.Handle]++
			}
			if !e.visible && e.op == nil {
				t.Errorf("%s/%s is invisible with nothing in flight", id, e.t.Handle)
			}
		}
		if active != a.active {
			t.Errorf("%s: active %d, entries say %d", id, a.active, active)
		}
	}
	indexed := 0
	for _, m := range r.at {
		indexed += len(m)
	}
	if indexed != n {
		t.Errorf("%d entries indexed, %d in lists", indexed, n)
	}
	if !maps.Equal(unresolved, r.unresolved) {
		t.Errorf("unresolved %v, entries say %v", r.unresolved, unresolved)
	}
}

// randomChange makes change op (0-1 add, 2 remove, 3-4 resolve, 5 rename)
// of a random account, handle and user; errDown (the store's or journal's
// injected failure) and the refusals a race can cause are expected.
func randomChange(t *testing.T, ctx context.Context, r *Registry, rng *rand.Rand, op int, accounts, handles, users []string, max int) {
	acct, h, u := accounts[rng.IntN(len(accounts))], handles[rng.IntN(len(handles))], users[rng.IntN(len(users))]
	switch op {
	case 0, 1:
		var id *string
		if rng.IntN(2) == 0 {
			id = &u
		}
		if _, err := r.Add(ctx, acct, h, "N"+u, id, max); err != nil &&
			!errors.Is(err, ErrExists) && !errors.Is(err, ErrLimit) && !errors.Is(err, errDown) {
			t.Errorf("Add: %v", err)
		}
	case 2:
		if err := r.Remove(ctx, acct, h); err != nil && !errors.Is(err, ErrNotTracked) && !errors.Is(err, errDown) {
			t.Errorf("Remove: %v", err)
		}
	case 3, 4:
		r.Resolve(h, u, "N"+u)
	case 5:
		r.Rename(h, handles[rng.IntN(len(handles))], u)
	}
}
