package targets

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/alertd/alertd/persistence"
)

// TestRegistryReload: what one registry commits, another over the same
// store (another node) takes on Reload of the accounts named, and its
// listener hears it; onChange names the accounts of the first one's adds
// and removes, and a Reload is not announced again.
func TestRegistryReload(t *testing.T) {
	ctx := context.Background()
	a, _, fs, _ := newRegistry(t)
	var mu sync.Mutex
	var announced [][]string
	a.OnChange(func(accts []string) {
		mu.Lock()
		announced = append(announced, slices.Clone(accts))
		mu.Unlock()
	})
	recB := &recorder{}
	b := NewRegistry(fs.Store, recB, testNow, WithLogger(quiet))
	t.Cleanup(b.Close)
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	var bAnnounced int
	b.OnChange(func([]string) { bAnnounced++ }) // only ever called on b's committer

	for _, h := range []string{"alpha", "beta"} {
		if _, err := a.Add(ctx, "a", h, "", nil, 10); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Add(ctx, "b", "gamma", "", nil, 10); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(b, "a", "b"), snapshot(a, "a"); got != want {
		t.Errorf("after Reload(a):\n got %s\nwant %s", got, want)
	}
	if want := []string{"+a/alpha", "+a/beta"}; !slices.Equal(recB.heard(), want) {
		t.Errorf("b's listener heard %v, want %v", recB.heard(), want)
	}
	if err := a.Remove(ctx, "a", "alpha"); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, nil); err != nil { // every account
		t.Fatal(err)
	}
	if got, want := snapshot(b, "a", "b"), snapshot(a, "a", "b"); got != want {
		t.Errorf("after Reload(all):\n got %s\nwant %s", got, want)
	}
	if want := []string{"+a/alpha", "+a/beta", "+b/gamma", "-a/alpha"}; !slices.Equal(recB.heard(), want) {
		t.Errorf("b's listener heard %v, want %v", recB.heard(), want)
	}
	if all, active := b.Counts("a"); all != 1 || active != 1 {
		t.Errorf("b's Counts(a) = %d, %d, want 1, 1", all, active)
	}
	// b's limits count what it reloaded.
	if _, err := b.Add(ctx, "b", "delta", "", nil, 1); !errors.Is(err, ErrLimit) {
		t.Errorf("b: add past the limit after Reload: %v, want ErrLimit", err)
	}
	if err := b.Reload(ctx, []string{"a"}); err != nil { // nothing changed: nothing heard
		t.Fatal(err)
	}
	if n := len(recB.heard()); n != 4 {
		t.Errorf("a Reload with nothing new told the listener %v", recB.heard())
	}
	if bAnnounced != 0 {
		t.Errorf("b announced %d reloads as its own changes", bAnnounced)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := [][]string{{"a"}, {"a"}, {"b"}, {"a"}}; !slices.EqualFunc(announced, want, slices.Equal) {
		t.Errorf("a announced %v, want %v", announced, want)
	}
}

// TestRegistryReloadRename: a rename written by one registry is announced
// and, reloaded by another, moves that one's target (its sessions follow).
func TestRegistryReloadRename(t *testing.T) {
	ctx := context.Background()
	a, _, fs, _ := newRegistry(t)
	announced := make(chan []string, 10)
	a.OnChange(func(accts []string) { announced <- slices.Clone(accts) })
	id := "9"
	if _, err := a.Add(ctx, "c", "before", "", &id, 10); err != nil {
		t.Fatal(err)
	}
	<-announced
	recB := &recorder{}
	b := NewRegistry(fs.Store, recB, testNow, WithLogger(quiet))
	t.Cleanup(b.Close)
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	a.Rename("before", "after", id)
	mustFlush(t, a)
	if got := <-announced; !slices.Equal(got, []string{"c"}) {
		t.Fatalf("the rename announced %v, want [c]", got)
	}
	if err := b.Reload(ctx, []string{"c"}); err != nil {
		t.Fatal(err)
	}
	if got := b.ActiveHandles("c"); !slices.Equal(got, []string{"after"}) {
		t.Errorf("b's handles of c after Reload: %v, want [after]", got)
	}
	if want := []string{"+c/after", "-c/before"}; !slices.Equal(recB.heard(), want) {
		t.Errorf("b's listener heard %v, want %v", recB.heard(), want)
	}
}

// TestRegistryReloadKeepsUnwritten: a rename this registry has not written
// yet (the store fails) is newer than the store's rows: Reload keeps it,
// and the store follows once it takes the write.
func TestRegistryReloadKeepsUnwritten(t *testing.T) {
	ctx := context.Background()
	r, _, fs, loadAgain := newRegistry(t)
	id := "7"
	if _, err := r.Add(ctx, "a", "old", "", &id, 10); err != nil {
		t.Fatal(err)
	}
	failing := errors.New("store down")
	fs.setFail(func([]persistence.Target, []persistence.TargetKey) error { return failing })
	r.Rename("old", "new", id)
	if err := r.Flush(ctx); !errors.Is(err, failing) {
		t.Fatalf("Flush with the store down: %v", err)
	}
	if err := r.Reload(ctx, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if got := r.ActiveHandles("a"); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("after Reload, a's handles are %v, want the unwritten rename [new]", got)
	}
	fs.setFail(nil)
	mustFlush(t, r)
	if got := loadAgain().ActiveHandles("a"); !slices.Equal(got, []string{"new"}) {
		t.Errorf("the store holds %v, want [new]", got)
	}
}

// TestRegistryReloadClosed: Reload after Close says so.
func TestRegistryReloadClosed(t *testing.T) {
	r, _, _, _ := newRegistry(t)
	r.Close()
	if err := r.Reload(context.Background(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Reload after Close: %v, want ErrClosed", err)
	}
}
