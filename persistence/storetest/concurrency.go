package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

var concurrencyTests = []test{
	{"batch writes and reads at once", testConcurrent},
	{"concurrent issues leave one active key", testConcurrentIssue},
}

// testConcurrentIssue issues keys of one pair from many goroutines at once:
// each issue must revoke the one before it, whatever the interleaving.
func testConcurrentIssue(t *testing.T, s persistence.Store) {
	const workers, each = 12, 6
	must(t, "CreateAccount", createAccount(t, s, "acc-1"))
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				k := newKey(fmt.Sprintf("k-%d-%d", w, i), "acc-1", protocol.ProductCW, at(time.Duration(i)*time.Second))
				if err := s.IssueKey(t.Context(), k); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("IssueKey: %v", err)
	}
	keys, err := s.ListKeys(t.Context())
	must(t, "ListKeys", err)
	active := 0
	for _, k := range keys {
		if k.State == persistence.KeyActive {
			active++
		}
	}
	if len(keys) != workers*each || active != 1 {
		t.Errorf("%d keys of which %d active, want %d keys of which 1 active", len(keys), active, workers*each)
	}
}

// testConcurrent runs writers (overlapping posts and snapshots, keys of one
// shared pair, disjoint users, appends) beside readers, then checks that
// every write landed exactly once.
func testConcurrent(t *testing.T, s persistence.Store) {
	const (
		writers     = 8
		rounds      = 3
		ownPosts    = 50
		sharedPosts = 30
		users       = 10
		recs        = 50
		snapHandles = 10
	)
	ctx := t.Context()
	must(t, "CreateAccount", createAccount(t, s, "shared"))

	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*8+64)
	stop := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				var posts []persistence.Post
				for i := range ownPosts {
					id := fmt.Sprintf("w%d-r%d-%03d", w, r, i)
					posts = append(posts, post(id, fmt.Sprintf("writer%d", w), at(time.Duration(i)*time.Second), at(0), id))
				}
				// Shared posts, in an order that differs per writer.
				for i := range sharedPosts {
					id := fmt.Sprintf("s%03d", (i*(w+1)*7)%sharedPosts)
					posts = append(posts, post(id, "shared", at(time.Duration(i)*time.Second), at(0), fmt.Sprintf("w%d", w)))
				}
				if err := s.SavePosts(ctx, posts); err != nil {
					errs <- fmt.Errorf("writer %d SavePosts: %w", w, err)
				}
				var snaps []persistence.Snapshot
				for i := range snapHandles {
					h := fmt.Sprintf("h%02d", (snapHandles-i+w)%snapHandles)
					snaps = append(snaps, snap(h, protocol.KindFollowing, fmt.Sprint(w), at(0)),
						snap(h, protocol.KindCommunities, fmt.Sprint(w), at(0)))
				}
				if err := s.PutSnapshots(ctx, snaps); err != nil {
					errs <- fmt.Errorf("writer %d PutSnapshots: %w", w, err)
				}
				var batch []persistence.ObservationRecord
				for i := range recs {
					batch = append(batch, obs(protocol.KindEngagement, fmt.Sprintf("w%d-%d-%d", w, r, i), at(time.Duration(r)*time.Minute)))
				}
				if err := s.AppendObservations(ctx, batch); err != nil {
					errs <- fmt.Errorf("writer %d AppendObservations: %w", w, err)
				}
				var us []persistence.User
				for i := range users {
					us = append(us, user(fmt.Sprintf("%d-%d", w, i), fmt.Sprintf("u%d_%d", w, i), at(time.Duration(r)*time.Minute)))
				}
				if err := s.UpsertUsers(ctx, us); err != nil {
					errs <- fmt.Errorf("writer %d UpsertUsers: %w", w, err)
				}
				k := newKey(fmt.Sprintf("key-%d-%d", w, r), "shared", protocol.ProductCW, at(time.Duration(r)*time.Minute))
				if err := s.IssueKey(ctx, k); err != nil {
					errs <- fmt.Errorf("writer %d IssueKey: %w", w, err)
				}
			}
		})
	}
	var readers sync.WaitGroup
	for rd := range 4 {
		readers.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
				var err error
				switch n % 5 {
				case 0:
					_, err = s.RecentPosts(ctx, "shared", 20)
				case 1:
					_, err = s.ListObservations(ctx, protocol.KindEngagement, at(0), 50)
				case 2:
					_, err = s.GetSnapshot(ctx, "h01", protocol.KindFollowing)
				case 3:
					_, err = s.UserByHandle(ctx, fmt.Sprintf("u%d_0", rd))
				case 4:
					_, err = s.ListKeys(ctx)
				}
				if err != nil && !errors.Is(err, persistence.ErrNotFound) {
					errs <- fmt.Errorf("reader %d: %w", rd, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	for w := range writers {
		got, err := s.RecentPosts(ctx, fmt.Sprintf("writer%d", w), 1_000_000)
		must(t, "RecentPosts", err)
		if len(got) != rounds*ownPosts {
			t.Errorf("writer%d has %d posts, want %d", w, len(got), rounds*ownPosts)
		}
	}
	got, err := s.RecentPosts(ctx, "shared", 1_000_000)
	must(t, "RecentPosts(shared)", err)
	if len(got) != sharedPosts {
		t.Errorf("shared has %d posts, want %d", len(got), sharedPosts)
	}
	recsGot, err := s.ListObservations(ctx, protocol.KindEngagement, time.Time{}, 1_000_000)
	must(t, "ListObservations", err)
	if len(recsGot) != writers*rounds*recs {
		t.Errorf("%d observations, want %d", len(recsGot), writers*rounds*recs)
	}
	seen := map[string]bool{}
	for _, r := range recsGot {
		if seen[r.Key] {
			t.Errorf("observation %s listed twice", r.Key)
		}
		seen[r.Key] = true
	}
	us, err := s.ListUsers(ctx)
	must(t, "ListUsers", err)
	if len(us) != writers*users {
		t.Errorf("%d users, want %d", len(us), writers*users)
	}
	for i := range snapHandles {
		for _, kind := range []string{protocol.KindFollowing, protocol.KindCommunities} {
			_, err := s.GetSnapshot(ctx, fmt.Sprintf("h%02d", i), kind)
			must(t, "GetSnapshot", err)
		}
	}
	keys, err := s.ListKeys(ctx)
	must(t, "ListKeys", err)
	active := 0
	for _, k := range keys {
		if k.State == persistence.KeyActive {
			active++
		}
	}
	if len(keys) != writers*rounds || active != 1 {
		t.Errorf("%d keys of which %d active, want %d keys of which 1 active", len(keys), active, writers*rounds)
	}
}
