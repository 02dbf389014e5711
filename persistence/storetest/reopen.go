package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

var reopenTests = []reopenTest{
	{"data survives a reopen", func(t *testing.T, open Opener) {
		ctx := t.Context()
		s := mustOpen(t, open)
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		sub := fullSub("acc-1")
		must(t, "PutSubscription", s.PutSubscription(ctx, sub))
		k := newKey("k1", "acc-1", protocol.ProductB2B, at(time.Minute))
		must(t, "IssueKey", s.IssueKey(ctx, k))
		u := user("1", "alice", at(time.Minute))
		must(t, "UpsertUsers", s.UpsertUsers(ctx, []persistence.User{u}))
		p := post("100", "alice", at(0), at(time.Second), `{"text":"gm"}`)
		must(t, "SavePosts", s.SavePosts(ctx, []persistence.Post{p}))
		sn := snap("alice", protocol.KindFollowing, `{"following":[]}`, at(time.Minute))
		must(t, "PutSnapshots", s.PutSnapshots(ctx, []persistence.Snapshot{sn}))
		r := obs(protocol.KindTrending, "t1", at(time.Minute))
		must(t, "AppendObservations", s.AppendObservations(ctx, []persistence.ObservationRecord{r}))
		must(t, "Close", s.Close())

		s = mustOpen(t, open)
		defer s.Close()
		a, err := s.GetAccount(ctx, "acc-1")
		must(t, "GetAccount after reopen", err)
		checkTime(t, "account CreatedAt", a.CreatedAt, at(0))
		gotSub, err := s.GetSubscription(ctx, "acc-1", protocol.ProductB2B)
		must(t, "GetSubscription after reopen", err)
		checkSub(t, "subscription after reopen", gotSub, sub)
		gotKey, err := s.KeyByHash(ctx, hash("k1"))
		must(t, "KeyByHash after reopen", err)
		checkKey(t, "key after reopen", gotKey, k)
		gotUser, err := s.UserByHandle(ctx, "alice")
		must(t, "UserByHandle after reopen", err)
		checkUser(t, "user after reopen", gotUser, u)
		gotPost, err := s.PostByID(ctx, "100")
		must(t, "PostByID after reopen", err)
		checkPost(t, "post after reopen", gotPost, p)
		gotSnap, err := s.GetSnapshot(ctx, "alice", protocol.KindFollowing)
		must(t, "GetSnapshot after reopen", err)
		checkSnap(t, "snapshot after reopen", gotSnap, sn)
		recs, err := s.ListObservations(ctx, protocol.KindTrending, at(0), 10)
		must(t, "ListObservations after reopen", err)
		if keys := obsKeys(recs); len(keys) != 1 || keys[0] != "t1" {
			t.Errorf("observations after reopen = %v, want [t1]", keys)
		}
		// Writes still work after the reopen (the schema is intact, the
		// observation ids go on).
		must(t, "AppendObservations after reopen", s.AppendObservations(ctx, []persistence.ObservationRecord{obs(protocol.KindTrending, "t2", at(time.Minute))}))
		recs, err = s.ListObservations(ctx, protocol.KindTrending, at(0), 10)
		must(t, "ListObservations", err)
		if keys := obsKeys(recs); len(keys) != 2 || keys[0] != "t1" || keys[1] != "t2" {
			t.Errorf("observations = %v, want [t1 t2]", keys)
		}
	}},
	{"open many times", func(t *testing.T, open Opener) {
		for i := range 4 {
			s := mustOpen(t, open)
			must(t, fmt.Sprintf("CreateAccount on open %d", i), createAccount(t, s, fmt.Sprintf("acc-%d", i)))
			must(t, "Close", s.Close())
		}
		s := mustOpen(t, open)
		defer s.Close()
		for i := range 4 {
			_, err := s.GetAccount(t.Context(), fmt.Sprintf("acc-%d", i))
			must(t, "GetAccount", err)
		}
	}},
	{"concurrent opens on a new place", func(t *testing.T, open Opener) {
		const n = 4
		stores := make([]persistence.Store, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { stores[i], errs[i] = open() })
		}
		wg.Wait()
		for i, s := range stores {
			if s != nil {
				t.Cleanup(func() { s.Close() })
			}
			if errs[i] != nil {
				t.Errorf("concurrent open %d: %v", i, errs[i])
			}
		}
		if t.Failed() {
			return
		}
		for i, s := range stores {
			wg.Go(func() {
				if err := createAccount(t, s, fmt.Sprintf("acc-%d", i)); err != nil {
					t.Errorf("store %d: CreateAccount: %v", i, err)
				}
			})
		}
		wg.Wait()
		// Every store sees every account.
		for i, s := range stores {
			for j := range n {
				if _, err := s.GetAccount(t.Context(), fmt.Sprintf("acc-%d", j)); err != nil {
					t.Errorf("store %d: GetAccount(acc-%d): %v", i, j, err)
				}
			}
		}
	}},
}

// mustOpen opens a store with open, closed when t ends (Close tolerates a
// second call).
func mustOpen(t *testing.T, open Opener) persistence.Store {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
