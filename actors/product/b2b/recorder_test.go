package b2b

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// syncJobs runs each job at once, on the caller's goroutine, and remembers
// its name.
type syncJobs struct {
	t     *testing.T
	mu    sync.Mutex
	names []string
}

func (j *syncJobs) Do(name string, f func(ctx context.Context) error) {
	j.mu.Lock()
	j.names = append(j.names, name)
	j.mu.Unlock()
	if err := f(context.Background()); err != nil {
		j.t.Errorf("job %s: %v", name, err)
	}
}

func (j *syncJobs) list() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.names)
}

func newRecorder(t *testing.T, opt Options) (*Recorder, persistence.Store, *syncJobs) {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown)
	jobs := &syncJobs{t: t}
	r, err := Start(testKit(t, sys), st, jobs, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r, st, jobs
}

func at(ms int64) int64 { return t0.UnixMilli() + ms }

func profile(id string, followers int64, ms int64) *handle.ProfileChanged {
	return &handle.ProfileChanged{UserID: id, New: &protocol.UserObs{ID: id, Handle: "whale", Followers: followers, Following: 1}, At: at(ms)}
}

func TestRecorderWritesWhatItHears(t *testing.T) {
	// A long interval: only Flush writes, so the test sees one batch.
	r, st, jobs := newRecorder(t, Options{Interval: time.Hour})
	ctx := t.Context()

	for i, f := range []int64{10, 10, 12} {
		r.Hear(profile("42", f, int64(i)*1000))
	}
	r.Hear(&handle.FollowsChanged{Handle: "whale", First: true, At: at(0),
		Following: []protocol.FollowUser{{ID: "1", Handle: "one"}, {ID: "2", Handle: "two"}}})
	r.Hear(&handle.FollowsChanged{Handle: "whale", At: at(1000), PrevAt: at(0),
		Following: []protocol.FollowUser{{ID: "2", Handle: "two"}, {ID: "3", Handle: "three"}},
		Added:     []protocol.FollowUser{{ID: "3", Handle: "three"}}, Removed: []protocol.FollowUser{{ID: "1", Handle: "one"}}})
	r.Hear(&handle.FollowersAdded{Handle: "whale", At: at(2000), Users: []protocol.NewFollower{{ID: "9", Handle: "fan"}}})
	r.Hear(&handle.MembershipsChanged{Handle: "whale", At: at(0), First: true,
		Memberships: []handle.Membership{{Community: protocol.Community{ID: "c1", Name: "Builders", MemberCount: 9}}}})
	r.Hear(&handle.EngagementChanged{At: at(3000), Counts: &protocol.EngagementObs{TweetID: "5", FavoriteCount: 7, BookmarkCount: 2}})
	post := func(id string, likes int64, ms int64, isNew bool) *handle.PostSeen {
		o := &protocol.Observation{Kind: protocol.KindPost, Key: "whale", DetectedAt: at(ms),
			Post: &protocol.Tweet{ID: id, Metrics: protocol.TweetMetrics{Likes: i64(likes)}}}
		return &handle.PostSeen{Handle: "whale", Obs: o, New: isNew, FirstSeen: at(ms)}
	}
	r.Hear(post("5", 8, 4000, true)) // a new post: its counts are in the post
	r.Hear(post("6", 1, 5000, false))
	r.Hear(&handle.PostDeleted{Handle: "whale"}) // not kept

	if err := r.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	// One job per kind.
	wantJobs := []string{"lookups profile history", "lookups engagement", "lookups following", "lookups followers", "lookups communities"}
	if got := jobs.list(); !slices.Equal(got, wantJobs) {
		t.Fatalf("jobs %v, want %v", got, wantJobs)
	}
	h, err := st.ProfileHistory(ctx, "42", 0, 0)
	if err != nil || len(h) != 2 || h[0].Followers != 12 || h[1].Followers != 10 {
		t.Errorf("history %+v %v, want followers 12 then 10", h, err)
	}
	n, err := st.CountFollowEdges(ctx, "whale", persistence.RelationFollowing)
	if err != nil || n != 2 {
		t.Errorf("current following %d %v, want 2", n, err)
	}
	diff, err := st.SocialDiff(ctx, "whale", []string{persistence.RelationFollowing, persistence.RelationFollower},
		persistence.ChangeAdded, t0.Add(-time.Hour), 100)
	var ids []string
	for _, c := range diff {
		ids = append(ids, c.Relation+":"+c.TargetID)
	}
	if err != nil || !slices.Equal(ids, []string{"follower:9", "following:3"}) {
		t.Errorf("added %v %v, want [follower:9 following:3] (the first list is the baseline)", ids, err)
	}
	edges, err := st.ListFollowEdges(ctx, "whale", persistence.RelationFollowing, 10, 0)
	if err != nil || len(edges) != 3 || edges[2].TargetID != "1" || edges[2].IsCurrent || !edges[2].LastSeenAt.Equal(edges[2].FirstSeenAt) {
		t.Errorf("edges %+v %v: the removed edge keeps its last sighting", edges, err)
	}
	cs, err := st.HandleCommunities(ctx, "whale")
	if err != nil || len(cs) != 1 || cs[0].CommunityName != "Builders" {
		t.Errorf("communities %+v %v", cs, err)
	}
	e, err := st.LatestEngagement(ctx, "5")
	if err != nil || *e.Likes != 7 || *e.Bookmarks != 2 {
		t.Errorf("engagement of 5: %+v %v", e, err)
	}
	e, err = st.LatestEngagement(ctx, "6")
	if err != nil || *e.Likes != 1 {
		t.Errorf("engagement of re-observed post 6: %+v %v", e, err)
	}
}

func TestRecorderFlushesOnItsOwn(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"by interval", Options{Interval: 10 * time.Millisecond, MaxBatch: 1 << 20}},
		{"by batch size", Options{Interval: time.Hour, MaxBatch: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, st, _ := newRecorder(t, c.opt)
			for i := range 3 {
				r.Hear(profile("7", int64(i), int64(i)))
			}
			testkit.WaitFor(t, 10*time.Second, "3 history rows without a Flush", func() (bool, string) {
				h, err := st.ProfileHistory(t.Context(), "7", 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				return len(h) == 3, fmt.Sprint(len(h), " rows")
			})
		})
	}
}

// Subscribed to the handle actors, the recorder keeps what they observe.
func TestRecorderThroughHandleActors(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	w := writer.New(st, writer.Options{})
	defer w.Stop()
	r, err := Start(testKit(t, sys), st, w, Options{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	subs := []handle.Subscriber{r}
	router := handle.NewRouter(sys, &handle.Deps{Dir: directory.New(), Writer: w, Log: slog.Default(),
		Timings: protocol.DefaultTimings(), Subs: &handle.Subscriptions{ProfileChanged: subs, FollowsChanged: subs,
			FollowersAdded: subs, MembershipsChanged: subs, EngagementChanged: subs, PostSeen: subs}})
	route := func(line string) {
		o, err := protocol.DecodeObservation([]byte(line), t0.UnixMilli())
		if err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		router.Route(o)
	}
	route(`{"kind":"user","id":"42","handle":"Whale","name":"W","bio":"","avatar":"","followers":5,"following":1,"verified":false,"pinned_post":[],"categories":[]}`)
	route(`{"kind":"communities","handle":"whale","communities":[{"id":"c1","name":"Builders","description":"d","member_count":3,"creator_screen_name":"x"}]}`)
	route(`{"kind":"followers_new","handle":"whale","users":[{"id":"9","handle":"fan","name":null}]}`)
	route(`{"kind":"engagement","tweet_id":"5","favorite_count":1,"retweet_count":2,"reply_count":3,"quote_count":4,"bookmark_count":5}`)
	router.Stop()
	r.Stop() // flushes into the writer
	if err := w.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if h, err := st.ProfileHistory(ctx, "42", 0, 0); err != nil || len(h) != 1 || h[0].Followers != 5 {
		t.Errorf("history %+v %v", h, err)
	}
	if cs, err := st.HandleCommunities(ctx, "whale"); err != nil || len(cs) != 1 {
		t.Errorf("communities %+v %v", cs, err)
	}
	if n, err := st.CountFollowEdges(ctx, "whale", persistence.RelationFollower); err != nil || n != 1 {
		t.Errorf("followers %d %v", n, err)
	}
	if e, err := st.LatestEngagement(ctx, "5"); err != nil || e.Bookmarks == nil || *e.Bookmarks != 5 {
		t.Errorf("engagement %+v %v", e, err)
	}
	r.Stop() // a second Stop is harmless
}

// Stop hands what waits to the writer: nothing observed is lost at shutdown.
func TestRecorderStopFlushes(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	w := writer.New(st, writer.Options{})
	r, err := Start(testKit(t, sys), st, w, Options{Interval: time.Hour, MaxBatch: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	r.Hear(profile("5", 1, 0))
	r.Stop()
	w.Stop()
	if h, err := st.ProfileHistory(t.Context(), "5", 0, 0); err != nil || len(h) != 1 {
		t.Errorf("history after Stop: %+v %v, want the one row", h, err)
	}
}

// testKit is a kit over sys, closed with the test.
func testKit(tb testing.TB, sys *actor.ActorSystem) *kit.Kit {
	tb.Helper()
	k, err := kit.New(sys)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(k.Close)
	return k
}
