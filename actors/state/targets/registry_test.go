package targets

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

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

func newRegistry(t *testing.T) (*Registry, *recorder, func() *Registry) {
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
	now := func() time.Time { return time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC) }
	rec := &recorder{}
	r := NewRegistry(st, rec, now)
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	reload := func() *Registry {
		r2 := NewRegistry(st, nil, now)
		if err := r2.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		return r2
	}
	return r, rec, reload
}

func TestRegistryAddRemoveLimit(t *testing.T) {
	ctx := context.Background()
	r, rec, reload := newRegistry(t)
	id := "42"
	if _, err := r.Add(ctx, "acct1", "alpha", "Alpha", &id, 2); err != nil {
		t.Fatal(err)
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
	if want := []string{"+acct1/alpha", "+acct1/beta", "-acct1/alpha"}; !slices.Equal(rec.log, want) {
		t.Errorf("listener heard %v, want %v", rec.log, want)
	}
	if got := reload().ActiveHandles("acct1"); !slices.Equal(got, []string{"beta"}) {
		t.Errorf("after reload: %v", got)
	}
}

// TestRegistryRename: targets of a renamed account move to the new handle
// (in memory and in the store); targets of the old handle that belong to
// another user stay; an account tracking both keeps one target.
func TestRegistryRename(t *testing.T) {
	ctx := context.Background()
	r, _, reload := newRegistry(t)
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

	n, err := r.Rename(ctx, "old", "new", uid)
	if err != nil || n != 3 {
		t.Fatalf("Rename = %d, %v; want 3 moved", n, err)
	}
	for _, reg := range []*Registry{r, reload()} {
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
	after, _ := r.Get("a", "new")
	if !after.CreatedAt.Equal(before.CreatedAt) {
		t.Errorf("created_at changed on rename: %v -> %v", before.CreatedAt, after.CreatedAt)
	}
	if n, err := r.Rename(ctx, "new", "new", uid); n != 0 || err != nil {
		t.Errorf("rename to itself: %d %v", n, err)
	}
}

// TestRegistryAddResolveConcurrent: a pending target resolved while Add is
// returning (run with -race).
func TestRegistryAddResolveConcurrent(t *testing.T) {
	ctx := context.Background()
	r, _, _ := newRegistry(t)
	for i := 0; i < 30; i++ {
		h := "h" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			tg, err := r.Add(ctx, "acct1", h, "", nil, 100)
			if err != nil {
				t.Error(err)
			}
			_ = tg.SocialUserID
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				if _, err := r.Resolve(ctx, h, "77", "Name"); err != nil {
					t.Error(err)
				}
			}
		}()
		wg.Wait()
	}
}
