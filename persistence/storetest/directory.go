package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

func user(id, handle string, updated time.Time) persistence.User {
	return persistence.User{
		ID: id, Handle: handle, Categories: []string{"kol", "alpha"},
		Snapshot:  []byte(fmt.Sprintf(`{"id":%q,"handle":%q}`, id, handle)),
		UpdatedAt: updated,
	}
}

func checkUser(t *testing.T, what string, got, want persistence.User) {
	t.Helper()
	if got.ID != want.ID || got.Handle != want.Handle || got.Suspended != want.Suspended {
		t.Errorf("%s: id/handle/suspended = %s/%q/%v, want %s/%q/%v", what,
			got.ID, got.Handle, got.Suspended, want.ID, want.Handle, want.Suspended)
	}
	if !slices.Equal(got.Categories, want.Categories) || (got.Categories == nil) != (want.Categories == nil) {
		t.Errorf("%s: Categories = %#v, want %#v", what, got.Categories, want.Categories)
	}
	if !bytes.Equal(got.Snapshot, want.Snapshot) || (got.Snapshot == nil) != (want.Snapshot == nil) {
		t.Errorf("%s: Snapshot = %q, want %q", what, got.Snapshot, want.Snapshot)
	}
	checkTime(t, what+": UpdatedAt", got.UpdatedAt, want.UpdatedAt)
}

// holder fails unless handle resolves to id.
func holder(t *testing.T, s persistence.Store, handle, id string) {
	t.Helper()
	u, err := s.UserByHandle(t.Context(), handle)
	if err != nil {
		t.Errorf("UserByHandle(%s): %v, want user %s", handle, err, id)
		return
	}
	if u.ID != id {
		t.Errorf("UserByHandle(%s) = user %s, want %s", handle, u.ID, id)
	}
}

func handleOf(t *testing.T, s persistence.Store, id string) string {
	t.Helper()
	u, err := s.UserByID(t.Context(), id)
	must(t, "UserByID("+id+")", err)
	return u.Handle
}

var userTests = []test{
	{"round trip", func(t *testing.T, s persistence.Store) {
		a := user("1", "alice", at(time.Minute))
		b := user("2", "bob", at(2*time.Minute))
		b.Suspended, b.Categories, b.Snapshot = true, nil, nil
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{a, b}))
		for _, want := range []persistence.User{a, b} {
			got, err := s.UserByID(t.Context(), want.ID)
			must(t, "UserByID", err)
			checkUser(t, "UserByID("+want.ID+")", got, want)
			got, err = s.UserByHandle(t.Context(), want.Handle)
			must(t, "UserByHandle", err)
			checkUser(t, "UserByHandle("+want.Handle+")", got, want)
		}
	}},
	{"missing", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "alice", at(0))}))
		_, err := s.UserByID(t.Context(), "2")
		checkNotFound(t, "UserByID(2)", err)
		_, err = s.UserByHandle(t.Context(), "bob")
		checkNotFound(t, "UserByHandle(bob)", err)
		_, err = s.UserByHandle(t.Context(), "")
		checkNotFound(t, "UserByHandle(\"\")", err)
	}},
	{"handles are case-insensitive", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "MixedCase", at(0))}))
		holder(t, s, "mixedcase", "1")
		holder(t, s, "MIXEDCASE", "1")
		if h := handleOf(t, s, "1"); h != "mixedcase" {
			t.Errorf("stored handle = %q, want mixedcase", h)
		}
	}},
	{"update replaces every field", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "alice", at(0))}))
		u := persistence.User{ID: "1", Handle: "alice", Suspended: true, Categories: []string{"z", "a"},
			Snapshot: []byte(`{"v":2}`), UpdatedAt: at(time.Hour)}
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{u}))
		got, err := s.UserByID(t.Context(), "1")
		must(t, "UserByID", err)
		checkUser(t, "after update", got, u)
	}},
	{"rename keeps the id", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "old", at(0))}))
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "new", at(time.Minute))}))
		_, err := s.UserByHandle(t.Context(), "old")
		checkNotFound(t, "UserByHandle(old) after the rename", err)
		holder(t, s, "new", "1")
		users, err := s.ListUsers(t.Context())
		must(t, "ListUsers", err)
		if len(users) != 1 {
			t.Errorf("ListUsers has %d users after a rename, want 1", len(users))
		}
	}},
	{"handle taken over by another id", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "shared", at(0)), user("3", "carol", at(0))}))
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("2", "shared", at(time.Minute))}))
		holder(t, s, "shared", "2")
		if h := handleOf(t, s, "1"); h == "shared" {
			t.Errorf("user 1 still has handle %q after user 2 took it", h)
		}
		holder(t, s, "carol", "3")
		// The old holder shows up again under a new handle.
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "renamed", at(2*time.Minute))}))
		holder(t, s, "renamed", "1")
		holder(t, s, "shared", "2")
		// And takes its handle back.
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "shared", at(3*time.Minute))}))
		holder(t, s, "shared", "1")
		if h := handleOf(t, s, "2"); h == "shared" {
			t.Errorf("user 2 still has handle %q after user 1 took it back", h)
		}
		users, err := s.ListUsers(t.Context())
		must(t, "ListUsers", err)
		if len(users) != 3 {
			t.Errorf("ListUsers has %d users, want 3", len(users))
		}
	}},
	{"swap handles in one batch", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "x", at(0)), user("2", "y", at(0))}))
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{user("1", "y", at(time.Minute)), user("2", "x", at(time.Minute))}))
		holder(t, s, "x", "2")
		holder(t, s, "y", "1")
	}},
	{"later claim in a batch wins", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), []persistence.User{
			user("1", "x", at(0)), user("2", "x", at(0)), user("3", "x", at(0)),
		}))
		holder(t, s, "x", "3")
		for _, id := range []string{"1", "2"} {
			if h := handleOf(t, s, id); h == "x" {
				t.Errorf("user %s has handle x too", id)
			}
		}
	}},
	{"list", func(t *testing.T, s persistence.Store) {
		users, err := s.ListUsers(t.Context())
		must(t, "ListUsers on an empty store", err)
		if len(users) != 0 {
			t.Errorf("ListUsers on an empty store = %v", users)
		}
		want := map[string]persistence.User{}
		var batch []persistence.User
		for i := range 50 {
			u := user(fmt.Sprint(1000+i), fmt.Sprintf("h%d", i), at(time.Duration(i)*time.Second))
			u.Suspended = i%3 == 0
			batch = append(batch, u)
			want[u.ID] = u
		}
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), batch))
		users, err = s.ListUsers(t.Context())
		must(t, "ListUsers", err)
		if len(users) != len(want) {
			t.Errorf("ListUsers has %d users, want %d", len(users), len(want))
		}
		for _, u := range users {
			w, ok := want[u.ID]
			if !ok {
				t.Errorf("ListUsers has unexpected (or duplicate) user %s", u.ID)
				continue
			}
			delete(want, u.ID)
			checkUser(t, "ListUsers "+u.ID, u, w)
		}
	}},
	{"large batches rotating handles", func(t *testing.T, s persistence.Store) {
		const n = 700
		var batch []persistence.User
		for i := range n {
			batch = append(batch, user(fmt.Sprint(i), fmt.Sprintf("h%d", i), at(0)))
		}
		must(t, "UpsertUsers", s.UpsertUsers(t.Context(), batch))
		// Every user takes the handle of the next one; the last takes a new one.
		batch = batch[:0]
		for i := range n {
			h := fmt.Sprintf("h%d", i+1)
			if i == n-1 {
				h = "fresh"
			}
			batch = append(batch, user(fmt.Sprint(i), h, at(time.Minute)))
		}
		must(t, "UpsertUsers rotating", s.UpsertUsers(t.Context(), batch))
		_, err := s.UserByHandle(t.Context(), "h0")
		checkNotFound(t, "UserByHandle(h0) after the rotation", err)
		for _, i := range []int{0, 1, 255, 256, 257, 511, 512, n - 2} {
			holder(t, s, fmt.Sprintf("h%d", i+1), fmt.Sprint(i))
		}
		holder(t, s, "fresh", fmt.Sprint(n-1))
		users, err := s.ListUsers(t.Context())
		must(t, "ListUsers", err)
		if len(users) != n {
			t.Errorf("ListUsers has %d users, want %d", len(users), n)
		}
		handles := map[string]string{}
		for _, u := range users {
			if prev, ok := handles[u.Handle]; ok {
				t.Errorf("handle %q held by %s and %s", u.Handle, prev, u.ID)
			}
			handles[u.Handle] = u.ID
			checkTime(t, "UpdatedAt of "+u.ID, u.UpdatedAt, at(time.Minute))
		}
	}},
	{"empty batch", func(t *testing.T, s persistence.Store) {
		must(t, "UpsertUsers(nil)", s.UpsertUsers(t.Context(), nil))
		users, err := s.ListUsers(t.Context())
		must(t, "ListUsers", err)
		if len(users) != 0 {
			t.Errorf("ListUsers after an empty batch = %v", users)
		}
	}},
}
