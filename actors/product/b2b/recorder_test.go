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

func obs(kind, key string, ms int64) *protocol.Observation {
	return &protocol.Observation{Kind: kind, Key: key, DetectedAt: t0.UnixMilli() + ms}
}

func TestRecorderWritesWhatTheTapsHear(t *testing.T) {
	// A long interval: only Flush writes, so the test sees one batch.
	r, st, jobs := newRecorder(t, Options{Interval: time.Hour})
	ctx := t.Context()

	for i, f := range []int64{10, 10, 12} {
		o := obs(protocol.KindUser, "whale", int64(i)*1000)
		o.User = &protocol.UserObs{ID: "42", Handle: "whale", Followers: f, Following: 1}
		r.ObserveUser(o)
	}
	fo := func(ms int64, users ...protocol.FollowUser) {
		o := obs(protocol.KindFollowing, "whale", ms)
		o.Following = &protocol.FollowingObs{Handle: "whale", Users: users}
		r.ObserveFollowing(o)
	}
	fo(0, protocol.FollowUser{ID: "1", Handle: "one"}, protocol.FollowUser{ID: "2", Handle: "two"})
	fo(1000, protocol.FollowUser{ID: "2", Handle: "two"}, protocol.FollowUser{ID: "3", Handle: "three"})
	fn := obs(protocol.KindFollowersNew, "whale", 2000)
	fn.FollowersNew = &protocol.FollowersNewObs{Handle: "whale", Users: []protocol.NewFollower{{ID: "9", Handle: "fan"}}}
	r.ObserveFollowersNew(fn)
	co := obs(protocol.KindCommunities, "whale", 0)
	co.Communities = &protocol.CommunitiesObs{Handle: "whale", Communities: []protocol.Community{{ID: "c1", Name: "Builders", MemberCount: 9}}}
	r.ObserveCommunities(co)
	en := obs(protocol.KindEngagement, "tweet:5", 3000)
	en.Engagement = &protocol.EngagementObs{TweetID: "5", FavoriteCount: 7, BookmarkCount: 2}
	r.ObserveEngagement(en)
	po := obs(protocol.KindPost, "whale", 4000)
	po.Post = &protocol.Tweet{ID: "5", Metrics: protocol.TweetMetrics{Likes: i64(8)}}
	r.ObservePost(po, 0, true) // a new post: its counts are in the post
	po2 := obs(protocol.KindPost, "whale", 5000)
	po2.Post = &protocol.Tweet{ID: "6", Metrics: protocol.TweetMetrics{Likes: i64(1)}}
	r.ObservePost(po2, 0, false)

	if err := r.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	// One job per kind; the two following lists of one batch diff in order.
	wantJobs := []string{"lookups profile history", "lookups engagement", "lookups follow edges", "lookups communities"}
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
				o := obs(protocol.KindUser, "u", int64(i))
				o.User = &protocol.UserObs{ID: "7", Followers: int64(i)}
				r.ObserveUser(o)
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

// The taps Register installs hear observations routed to the handle actors.
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
	var taps handle.Taps
	r.Register(&taps)
	router := handle.NewRouter(sys, &handle.Deps{Dir: directory.New(), Writer: w, Log: slog.Default(),
		Timings: protocol.DefaultTimings(), Taps: &taps})
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
	o := obs(protocol.KindUser, "u", 0)
	o.User = &protocol.UserObs{ID: "5", Followers: 1}
	r.ObserveUser(o)
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
