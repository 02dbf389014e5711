package handle

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

func TestFollowDiff(t *testing.T) {
	u := func(id string) protocol.FollowUser { return protocol.FollowUser{ID: id, Handle: "h" + id} }
	prev := map[string]protocol.FollowUser{"1": u("1"), "2": u("2"), "3": u("3")}
	renamedOne := protocol.FollowUser{ID: "1", Handle: "one"}
	added, removed, renamed := FollowDiff(prev, []string{"1", "2", "3"}, []protocol.FollowUser{u("2"), u("4"), renamedOne, u("5"), renamedOne})
	if len(added) != 2 || added[0].ID != "4" || added[1].ID != "5" {
		t.Fatalf("added %+v", added)
	}
	if len(removed) != 1 || removed[0].ID != "3" || removed[0].Handle != "h3" {
		t.Fatalf("removed %+v", removed)
	}
	if len(renamed) != 1 || renamed[0] != renamedOne {
		t.Fatalf("renamed %+v", renamed)
	}
	// Handles keep the platform's spelling; a change of case alone is no rename.
	_, _, renamed = FollowDiff(prev, []string{"1", "2", "3"}, []protocol.FollowUser{{ID: "1", Handle: "H1"}, u("2"), u("3")})
	if len(renamed) != 0 {
		t.Fatalf("a change of case renamed %+v", renamed)
	}
}

func TestUpdateReason(t *testing.T) {
	ocr := "CA inside"
	reply := &protocol.Tweet{Type: "reply", Text: "short"}
	withParent := &protocol.Tweet{Type: "reply", Text: "short", QuotedTweet: &protocol.QuotedTweet{ID: "1"}}
	longer := &protocol.Tweet{Type: "post", Text: "short and then the rest"}
	withOCR := &protocol.Tweet{Type: "post", Text: "short", OCRText: &ocr}
	cases := []struct {
		name  string
		first *protocol.Tweet
		again *protocol.Tweet
		want  UpdateReason
	}{
		{"same again", reply, reply, UpdateNone},
		{"context arrives", reply, withParent, UpdateContext},
		{"context already there", withParent, withParent, UpdateNone},
		{"untruncated", &protocol.Tweet{Type: "post", Text: "short"}, longer, UpdateText},
		{"ocr recovered", &protocol.Tweet{Type: "post", Text: "short"}, withOCR, UpdateOCR},
		{"plain post again", &protocol.Tweet{Type: "post", Text: "short"}, &protocol.Tweet{Type: "post", Text: "short"}, UpdateNone},
	}
	for _, c := range cases {
		if got := updateReason(statePost(c.first, 1), c.again); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// recorder is a subscriber that keeps the standard frames it gets.
type recorder struct {
	mu     sync.Mutex
	frames []string
	events []*delivery.Event
}

func (r *recorder) Deliver(e *delivery.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = append(r.frames, string(e.FrameFor(false)))
	r.events = append(r.events, e)
}

// Renamed makes the recorder follow renames, as sessions do (delivery.Renamer).
func (r *recorder) Renamed(_, _ string) {}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.frames...)
}

type rig struct {
	r   *Router
	hub *delivery.Hub
	rec *recorder
	w   *writer.Writer
	sys *actor.ActorSystem
}

func newRig(t *testing.T, handles ...string) *rig {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	hub := delivery.NewHub()
	rec := &recorder{}
	for _, h := range handles {
		hub.Subscribe(delivery.HandleTopic(h), rec)
	}
	w := writer.New(st, writer.Options{Logger: log})
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	d := &Deps{Dir: directory.New(), Writer: w, Log: log, Timings: protocol.DefaultTimings(), Hub: hub,
		Recent: delivery.NewRecent(15*60*1000, 500)}
	return &rig{r: NewRouter(sys, d), hub: hub, rec: rec, w: w, sys: sys}
}

// settle stops the actors so every routed observation has been handled.
func (g *rig) settle() {
	g.r.Stop()
	g.w.Stop()
	g.sys.Shutdown()
}

func TestDerivedEvents(t *testing.T) {
	g := newRig(t, "whale")
	now := time.Now().UnixMilli()
	route := func(line string, at int64) { g.r.Route(decode(t, line, at)) }
	route(`{"kind":"user","id":"7","handle":"whale","name":"W","bio":"old","categories":["coin"]}`, now)
	route(fmt.Sprintf(`{"kind":"post","id":"100","created_at":%d,"type":"reply","text":"hi","author":{"id":"7","handle":"whale"},"in_reply_to":{"tweet_id":"99","user":"x"}}`, now-500), now)
	route(fmt.Sprintf(`{"kind":"post","id":"100","created_at":%d,"type":"reply","text":"hi","author":{"id":"7","handle":"whale"},"in_reply_to":{"tweet_id":"99","user":"x"},"quoted_tweet":{"id":"99","text":"parent","author":{"handle":"x","name":null,"avatar":""}}}`, now-500), now+10)
	route(fmt.Sprintf(`{"kind":"post","id":"100","created_at":%d,"type":"reply","text":"hi","author":{"id":"7","handle":"whale"}}`, now-500), now+20)
	route(fmt.Sprintf(`{"kind":"post","id":"101","created_at":%d,"type":"post","text":"stale","author":{"id":"7","handle":"whale"}}`, now-60_000), now)
	route(`{"kind":"following","handle":"whale","users":[{"id":"1","handle":"a"},{"id":"2","handle":"b"}]}`, now)
	route(`{"kind":"following","handle":"whale","users":[{"id":"2","handle":"b"},{"id":"3","handle":"c","name":"C"}]}`, now+1000)
	route(`{"kind":"followers_new","handle":"whale","users":[{"id":"9","handle":"fan","name":"Fan"}]}`, now+2000)
	route(`{"kind":"post_deleted","handle":"whale","tweet_id":null,"text":null}`, now+3000)
	route(`{"kind":"user","id":"7","handle":"whale2","name":"W2","bio":"old","categories":["coin"]}`, now+4000)
	g.settle()

	// The handle actor and the user actor run independently: compare each
	// actor's events in order, not their interleaving.
	var got []string
	var gotEvents []*delivery.Event
	var profile []string
	for i, f := range g.rec.all() {
		if strings.Contains(f, "social.profile.update") {
			profile = append(profile, f)
			continue
		}
		got = append(got, f)
		gotEvents = append(gotEvents, g.rec.events[i])
	}
	got = append(got, profile...)
	want := []string{
		`{"op":0,"d":{"event":"social.post.new","event_id":"evt_100","task_info":{"handle":"whale"},"data":{"id":"100"`,
		`{"op":0,"d":{"event":"social.post.update","event_id":"evt_100","task_info":{"handle":"whale"},"data":{"id":"100"`,
		`{"op":0,"d":{"event":"social.post.new","event_id":"evt_101","task_info":{"handle":"whale"},"data":{"id":"101"`,
		fmt.Sprintf(`{"op":0,"d":{"event":"social.following.new","event_id":"evt_f_whale_%d","event_time":%d,"task_info":{"handle":"whale","id":"3"},"data":{"id":"3","handle":"c","name":"C","bio":null,"followers":null,"following":null,"protected":null}}}`, now+1000, now+1000),
		fmt.Sprintf(`{"op":0,"d":{"event":"social.following.removed","event_id":"evt_fr_whale_%d","event_time":%d,"task_info":{"handle":"whale","id":"1"},"data":{"id":"1","handle":"a"`, now+1000, now+1000),
		fmt.Sprintf(`{"op":0,"d":{"event":"social.follower.new","event_id":"evt_fl_whale_%d","event_time":%d,"task_info":{"handle":"whale","id":"9"},"data":{"id":"9","handle":"fan","name":"Fan"}}}`, now+2000, now+2000),
		fmt.Sprintf(`{"op":0,"d":{"event":"social.tweet.deleted","event_id":"evt_del_whale_%d","event_time":%d,"task_info":{"handle":"whale"},"data":{"tweet_id":null,"text":null}}}`, now+3000, now+3000),
		fmt.Sprintf(`{"op":0,"d":{"event":"social.profile.update","event_id":"evt_p_whale2_%d","event_time":%d,"task_info":{"handle":"whale2"},"data":{"field":"handle","prev":"whale","updated":"whale2"}}}`, now+4000, now+4000),
		`"data":{"field":"name","prev":"W","updated":"W2"}`,
		`"data":{"field":"display_name","prev":"W","updated":"W2"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("event %d:\n got %s\nwant (part) %s", i, got[i], w)
		}
	}
	late := gotEvents[2]
	if !late.Late || !strings.Contains(string(late.FrameFor(false)), `"delayed":true,"delay_ms":60000`) {
		t.Errorf("stale post not marked late: %s", late.FrameFor(false))
	}
	if gotEvents[0].Late || gotEvents[0].Meta.Type != protocol.TypeReply {
		t.Errorf("live reply meta: %+v", gotEvents[0].Meta)
	}
	if len(g.hub.Subscribers(delivery.HandleTopic("whale2"))) != 1 || len(g.hub.Subscribers(delivery.HandleTopic("whale"))) != 1 {
		t.Errorf("rename did not carry the subscription to the new handle")
	}
}
