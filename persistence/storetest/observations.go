package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

func post(id, handle string, created, detected time.Time, data string) persistence.Post {
	return persistence.Post{ID: id, Handle: handle, CreatedAt: created, DetectedAt: detected, Data: []byte(data)}
}

func checkPost(t *testing.T, what string, got, want persistence.Post) {
	t.Helper()
	if got.ID != want.ID || got.Handle != want.Handle || !bytes.Equal(got.Data, want.Data) {
		t.Errorf("%s: id/handle/data = %s/%s/%q, want %s/%s/%q", what,
			got.ID, got.Handle, got.Data, want.ID, want.Handle, want.Data)
	}
	checkTime(t, what+": CreatedAt", got.CreatedAt, want.CreatedAt)
	checkTime(t, what+": DetectedAt", got.DetectedAt, want.DetectedAt)
}

func postIDs(ps []persistence.Post) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}

var postTests = []test{
	{"save and get", func(t *testing.T, s persistence.Store) {
		p := post("100", "alice", at(-time.Minute), at(0), `{"text":"gm"}`)
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{p}))
		got, err := s.PostByID(t.Context(), "100")
		must(t, "PostByID", err)
		checkPost(t, "PostByID", got, p)
	}},
	{"missing", func(t *testing.T, s persistence.Store) {
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{post("100", "alice", at(0), at(0), "{}")}))
		_, err := s.PostByID(t.Context(), "101")
		checkNotFound(t, "PostByID(101)", err)
		got, err := s.RecentPosts(t.Context(), "bob", 10)
		must(t, "RecentPosts of a handle without posts", err)
		if len(got) != 0 {
			t.Errorf("RecentPosts(bob) = %v, want none", postIDs(got))
		}
	}},
	{"saving again keeps the first DetectedAt", func(t *testing.T, s persistence.Store) {
		first := post("100", "alice", at(0), at(time.Second), `{"v":1}`)
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{first}))
		second := post("100", "alice", at(0), at(time.Hour), `{"v":2}`)
		must(t, "SavePosts again", s.SavePosts(t.Context(), []persistence.Post{second}))
		got, err := s.PostByID(t.Context(), "100")
		must(t, "PostByID", err)
		want := second
		want.DetectedAt = first.DetectedAt
		checkPost(t, "after the second save", got, want)
		recent, err := s.RecentPosts(t.Context(), "alice", 10)
		must(t, "RecentPosts", err)
		if len(recent) != 1 {
			t.Errorf("RecentPosts has %d posts after saving one twice, want 1", len(recent))
		}
	}},
	{"same post twice in one batch", func(t *testing.T, s persistence.Store) {
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{
			post("100", "alice", at(0), at(time.Second), `{"v":1}`),
			post("099", "alice", at(0), at(0), `{}`),
			post("100", "alice", at(0), at(time.Minute), `{"v":2}`),
		}))
		got, err := s.PostByID(t.Context(), "100")
		must(t, "PostByID", err)
		checkPost(t, "PostByID", got, post("100", "alice", at(0), at(time.Second), `{"v":2}`))
	}},
	{"recent posts: newest first, by handle, limited", func(t *testing.T, s persistence.Store) {
		// Saved out of order, in two batches, with another handle between.
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{
			post("a3", "alice", at(3*time.Minute), at(0), "3"),
			post("a1", "alice", at(1*time.Minute), at(0), "1"),
			post("b9", "bob", at(9*time.Minute), at(0), "9"),
			post("a5", "alice", at(5*time.Minute), at(0), "5"),
		}))
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{
			post("a4", "alice", at(4*time.Minute), at(0), "4"),
			post("a2", "alice", at(2*time.Minute), at(0), "2"),
		}))
		for _, c := range []struct {
			handle string
			limit  int
			want   []string
		}{
			{"alice", 3, []string{"a5", "a4", "a3"}},
			{"alice", 1, []string{"a5"}},
			{"alice", 100, []string{"a5", "a4", "a3", "a2", "a1"}},
			{"Alice", 2, []string{"a5", "a4"}},
			{"bob", 10, []string{"b9"}},
		} {
			got, err := s.RecentPosts(t.Context(), c.handle, c.limit)
			must(t, "RecentPosts", err)
			if ids := postIDs(got); !slices.Equal(ids, c.want) {
				t.Errorf("RecentPosts(%s, %d) = %v, want %v", c.handle, c.limit, ids, c.want)
			}
		}
		got, err := s.RecentPosts(t.Context(), "alice", 1)
		must(t, "RecentPosts", err)
		if len(got) == 1 {
			checkPost(t, "RecentPosts(alice, 1)[0]", got[0], post("a5", "alice", at(5*time.Minute), at(0), "5"))
		}
	}},
	{"a re-saved post moves with its new CreatedAt", func(t *testing.T, s persistence.Store) {
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{
			post("p1", "alice", at(1*time.Minute), at(0), "1"),
			post("p2", "alice", at(2*time.Minute), at(0), "2"),
		}))
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{post("p1", "alice", at(3*time.Minute), at(0), "1b")}))
		got, err := s.RecentPosts(t.Context(), "alice", 10)
		must(t, "RecentPosts", err)
		if ids := postIDs(got); !slices.Equal(ids, []string{"p1", "p2"}) {
			t.Errorf("RecentPosts = %v, want [p1 p2]", ids)
		}
	}},
	{"large batch", func(t *testing.T, s persistence.Store) {
		const n = 2000
		batch := make([]persistence.Post, n)
		for i := range batch {
			batch[i] = post(fmt.Sprintf("%07d", i), fmt.Sprintf("h%d", i%50), at(time.Duration(i)*time.Second),
				at(time.Duration(i)*time.Second), fmt.Sprintf(`{"id":%d,"text":"%0200d"}`, i, i))
		}
		start := time.Now()
		must(t, "SavePosts", s.SavePosts(t.Context(), batch))
		t.Logf("SavePosts of %d posts: %v", n, time.Since(start))
		got, err := s.RecentPosts(t.Context(), "h7", n)
		must(t, "RecentPosts", err)
		if len(got) != n/50 {
			t.Errorf("RecentPosts(h7) has %d posts, want %d", len(got), n/50)
		}
		p, err := s.PostByID(t.Context(), fmt.Sprintf("%07d", n-1))
		must(t, "PostByID", err)
		checkPost(t, "last post", p, batch[n-1])
	}},
}

func snap(handle, kind, data string, observed time.Time) persistence.Snapshot {
	return persistence.Snapshot{Handle: handle, Kind: kind, Data: []byte(data), ObservedAt: observed}
}

func checkSnap(t *testing.T, what string, got, want persistence.Snapshot) {
	t.Helper()
	if got.Handle != want.Handle || got.Kind != want.Kind || !bytes.Equal(got.Data, want.Data) {
		t.Errorf("%s: handle/kind/data = %s/%s/%q, want %s/%s/%q", what,
			got.Handle, got.Kind, got.Data, want.Handle, want.Kind, want.Data)
	}
	checkTime(t, what+": ObservedAt", got.ObservedAt, want.ObservedAt)
}

var snapshotTests = []test{
	{"put and get", func(t *testing.T, s persistence.Store) {
		f := snap("alice", protocol.KindFollowing, `{"following":["bob"]}`, at(time.Minute))
		c := snap("alice", protocol.KindCommunities, `{"communities":[]}`, at(2*time.Minute))
		must(t, "PutSnapshots", s.PutSnapshots(t.Context(), []persistence.Snapshot{f, c}))
		for _, want := range []persistence.Snapshot{f, c} {
			got, err := s.GetSnapshot(t.Context(), want.Handle, want.Kind)
			must(t, "GetSnapshot", err)
			checkSnap(t, "GetSnapshot("+want.Kind+")", got, want)
		}
	}},
	{"missing", func(t *testing.T, s persistence.Store) {
		must(t, "PutSnapshots", s.PutSnapshots(t.Context(), []persistence.Snapshot{
			snap("alice", protocol.KindFollowing, "{}", at(0)),
		}))
		_, err := s.GetSnapshot(t.Context(), "alice", protocol.KindCommunities)
		checkNotFound(t, "GetSnapshot of a missing kind", err)
		_, err = s.GetSnapshot(t.Context(), "bob", protocol.KindFollowing)
		checkNotFound(t, "GetSnapshot of a missing handle", err)
	}},
	{"replace", func(t *testing.T, s persistence.Store) {
		must(t, "PutSnapshots", s.PutSnapshots(t.Context(), []persistence.Snapshot{
			snap("alice", protocol.KindFollowing, `{"v":1}`, at(time.Minute)),
			snap("bob", protocol.KindFollowing, `{"bob":1}`, at(time.Minute)),
		}))
		newer := snap("alice", protocol.KindFollowing, `{"v":2}`, at(time.Hour))
		must(t, "PutSnapshots again", s.PutSnapshots(t.Context(), []persistence.Snapshot{newer}))
		got, err := s.GetSnapshot(t.Context(), "alice", protocol.KindFollowing)
		must(t, "GetSnapshot", err)
		checkSnap(t, "after replace", got, newer)
		got, err = s.GetSnapshot(t.Context(), "bob", protocol.KindFollowing)
		must(t, "GetSnapshot(bob)", err)
		checkSnap(t, "bob's, untouched", got, snap("bob", protocol.KindFollowing, `{"bob":1}`, at(time.Minute)))
	}},
	{"last of a batch wins", func(t *testing.T, s persistence.Store) {
		last := snap("alice", protocol.KindFollowing, `{"v":3}`, at(time.Second))
		must(t, "PutSnapshots", s.PutSnapshots(t.Context(), []persistence.Snapshot{
			snap("alice", protocol.KindFollowing, `{"v":1}`, at(time.Minute)),
			snap("alice", protocol.KindCommunities, `{}`, at(time.Minute)),
			last,
		}))
		got, err := s.GetSnapshot(t.Context(), "alice", protocol.KindFollowing)
		must(t, "GetSnapshot", err)
		checkSnap(t, "GetSnapshot", got, last)
	}},
}

func obs(kind, key string, detected time.Time) persistence.ObservationRecord {
	return persistence.ObservationRecord{Kind: kind, Key: key, DetectedAt: detected,
		Data: []byte(fmt.Sprintf(`{"kind":%q,"key":%q}`, kind, key))}
}

func obsKeys(rs []persistence.ObservationRecord) []string {
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.Key
	}
	return keys
}

var observationTests = []test{
	{"batch: one transaction, all or nothing", func(t *testing.T, s persistence.Store) {
		b, ok := s.(interface {
			Batch(ctx context.Context, fn func(ctx context.Context) error) error
		})
		if !ok {
			t.Skip("no Batch")
		}
		ctx := t.Context()
		t0 := at(0)
		must(t, "Batch", b.Batch(ctx, func(ctx context.Context) error {
			if err := s.SavePosts(ctx, []persistence.Post{post("b1", "batcher", t0, t0, `{"n":1}`)}); err != nil {
				return err
			}
			return s.AppendObservations(ctx, []persistence.ObservationRecord{obs(protocol.KindTrending, "bt1", t0)})
		}))
		failed := errors.New("later part failed")
		if err := b.Batch(ctx, func(ctx context.Context) error {
			if err := s.SavePosts(ctx, []persistence.Post{post("b2", "batcher", t0, t0, `{"n":2}`)}); err != nil {
				return err
			}
			return failed
		}); !errors.Is(err, failed) {
			t.Fatalf("failed batch: %v", err)
		}
		ps, err := s.RecentPosts(ctx, "batcher", 10)
		must(t, "RecentPosts", err)
		if len(ps) != 1 || ps[0].ID != "b1" {
			t.Fatalf("posts after a committed and a failed batch: %+v (want b1 only)", ps)
		}
	}},
	{"since, limit, order", func(t *testing.T, s persistence.Store) {
		must(t, "AppendObservations", s.AppendObservations(t.Context(), []persistence.ObservationRecord{
			obs(protocol.KindTrending, "t3", at(3*time.Minute)),
			obs(protocol.KindTrending, "t1", at(1*time.Minute)),
			obs(protocol.KindEngagement, "e2", at(2*time.Minute)),
			obs(protocol.KindTrending, "t2", at(2*time.Minute)),
		}))
		must(t, "AppendObservations", s.AppendObservations(t.Context(), []persistence.ObservationRecord{
			obs(protocol.KindTrending, "t0", at(0)),
			obs(protocol.KindTrending, "t4", at(4*time.Minute)),
		}))
		for _, c := range []struct {
			kind  string
			since time.Time
			limit int
			want  []string
		}{
			{protocol.KindTrending, at(-time.Hour), 100, []string{"t0", "t1", "t2", "t3", "t4"}},
			{protocol.KindTrending, at(2 * time.Minute), 100, []string{"t2", "t3", "t4"}}, // since is inclusive
			{protocol.KindTrending, at(2*time.Minute + time.Millisecond), 100, []string{"t3", "t4"}},
			{protocol.KindTrending, at(2*time.Minute - time.Millisecond), 2, []string{"t2", "t3"}},
			{protocol.KindTrending, at(time.Hour), 100, nil},
			{protocol.KindEngagement, at(0), 100, []string{"e2"}},
			{protocol.KindLaunchpad, at(-time.Hour), 100, nil},
		} {
			got, err := s.ListObservations(t.Context(), c.kind, c.since, c.limit)
			must(t, "ListObservations", err)
			if keys := obsKeys(got); !slices.Equal(keys, c.want) {
				t.Errorf("ListObservations(%s, %v, %d) = %v, want %v", c.kind, c.since, c.limit, keys, c.want)
			}
		}
	}},
	{"round trip", func(t *testing.T, s persistence.Store) {
		r := obs(protocol.KindCallout, "c1", at(time.Minute))
		must(t, "AppendObservations", s.AppendObservations(t.Context(), []persistence.ObservationRecord{r}))
		got, err := s.ListObservations(t.Context(), protocol.KindCallout, at(0), 10)
		must(t, "ListObservations", err)
		if len(got) != 1 {
			t.Fatalf("ListObservations has %d records, want 1", len(got))
		}
		if got[0].Kind != r.Kind || got[0].Key != r.Key || !bytes.Equal(got[0].Data, r.Data) {
			t.Errorf("record = %s/%s/%q, want %s/%s/%q", got[0].Kind, got[0].Key, got[0].Data, r.Kind, r.Key, r.Data)
		}
		checkTime(t, "DetectedAt", got[0].DetectedAt, r.DetectedAt)
	}},
	{"same time lists in append order; duplicates kept", func(t *testing.T, s persistence.Store) {
		var batch []persistence.ObservationRecord
		var want []string
		for i := range 20 {
			k := fmt.Sprintf("k%02d", (i*7)%20) // not in key order
			batch = append(batch, obs(protocol.KindLaunchpad, k, at(time.Minute)))
			want = append(want, k)
		}
		batch = append(batch, obs(protocol.KindLaunchpad, "k00", at(time.Minute))) // same key again
		want = append(want, "k00")
		must(t, "AppendObservations", s.AppendObservations(t.Context(), batch[:10]))
		must(t, "AppendObservations", s.AppendObservations(t.Context(), batch[10:]))
		got, err := s.ListObservations(t.Context(), protocol.KindLaunchpad, at(0), 100)
		must(t, "ListObservations", err)
		if keys := obsKeys(got); !slices.Equal(keys, want) {
			t.Errorf("ListObservations = %v, want %v", keys, want)
		}
	}},
	{"empty batch", func(t *testing.T, s persistence.Store) {
		must(t, "AppendObservations(nil)", s.AppendObservations(t.Context(), nil))
		must(t, "SavePosts(nil)", s.SavePosts(t.Context(), nil))
		must(t, "PutSnapshots(nil)", s.PutSnapshots(t.Context(), nil))
		got, err := s.ListObservations(t.Context(), protocol.KindTrending, time.Time{}, 10)
		must(t, "ListObservations", err)
		if len(got) != 0 {
			t.Errorf("ListObservations after an empty batch = %v", obsKeys(got))
		}
	}},
}
