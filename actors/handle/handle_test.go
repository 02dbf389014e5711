package handle

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

func decode(t *testing.T, line string, at int64) *protocol.Observation {
	t.Helper()
	o, err := protocol.DecodeObservation([]byte(line), at)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return o
}

func TestRoute(t *testing.T) {
	cases := map[string][2]string{
		`{"kind":"user","id":"1","handle":"Ab"}`:                                        {"1", KindUser},
		`{"kind":"post_deleted","handle":"Ab"}`:                                         {"ab", KindHandle},
		`{"kind":"engagement","tweet_id":"5"}`:                                          {"engagement", KindFeed},
		`{"kind":"market_cap","mint":"m","market_cap":1}`:                               {"mint", KindFeed},
		`{"kind":"callout","caller_wallet":"w","mint":"m"}`:                             {"mint", KindFeed},
		`{"kind":"trending","category":"crypto","tweet":{"tweet_id":"1"}}`:              {"trending", KindFeed},
		`{"kind":"launchpad","event_type":"graduated","mint":"m","wallet_address":"w"}`: {"mint", KindFeed},
	}
	for line, want := range cases {
		if id, kind := Route(decode(t, line, 1)); id != want[0] || kind != want[1] {
			t.Errorf("%s: %s %s, want %s %s", line, id, kind, want[0], want[1])
		}
	}
}

// TestObservationsArriveInOrderAndPersist drives the router as ingest does and
// checks the directory, the store and per-handle order (the last snapshot wins).
func TestObservationsArriveInOrderAndPersist(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := writer.New(st, writer.Options{Logger: log})
	dir := directory.New()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	r := NewRouter(sys, &Deps{Dir: dir, Writer: w, Log: log})

	base := time.Now().UnixMilli()
	r.Route(decode(t, `{"kind":"user","id":"42","handle":"Whale","name":"W","followers":10}`, base))
	for i := 0; i < 200; i++ {
		r.Route(decode(t, fmt.Sprintf(`{"kind":"following","handle":"whale","users":[{"id":"%d","handle":"u%d"}]}`, i, i), base+int64(i)))
	}
	post := `{"kind":"post","id":"900","created_at":%d,"type":"post","text":"%s","author":{"id":"42","handle":"whale"}}`
	r.Route(decode(t, fmt.Sprintf(post, base, "first"), base))
	r.Route(decode(t, fmt.Sprintf(post, base, "second"), base+5000))
	r.Route(decode(t, `{"kind":"engagement","tweet_id":"900","favorite_count":3}`, base))
	r.Stop()
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.Stop()
	sys.Shutdown()

	if e, ok := dir.ByHandle("whale"); !ok || e.User.ID != "42" || e.User.Followers != 10 {
		t.Fatalf("directory: %+v %v", e, ok)
	}
	ctx := context.Background()
	u, err := st.UserByHandle(ctx, "whale")
	if err != nil || u.ID != "42" {
		t.Fatalf("stored user: %+v %v", u, err)
	}
	snap, err := st.GetSnapshot(ctx, "whale", protocol.KindFollowing)
	if err != nil {
		t.Fatal(err)
	}
	var f protocol.FollowingObs
	if err := json.Unmarshal(snap.Data, &f); err != nil || len(f.Users) != 1 || f.Users[0].ID != "199" {
		t.Fatalf("last snapshot is not the last observed: %s", snap.Data)
	}
	p, err := st.PostByID(ctx, "900")
	if err != nil {
		t.Fatal(err)
	}
	var tw protocol.Tweet
	if err := json.Unmarshal(p.Data, &tw); err != nil || tw.Text != "second" {
		t.Fatalf("post data not replaced: %s", p.Data)
	}
	if p.DetectedAt.UnixMilli() != base {
		t.Fatalf("detected_at %d, want first detection %d", p.DetectedAt.UnixMilli(), base)
	}
	recs, err := st.ListObservations(ctx, protocol.KindEngagement, time.UnixMilli(0), 10)
	if err != nil || len(recs) != 1 || recs[0].Key != "tweet:900" {
		t.Fatalf("engagement record: %+v %v", recs, err)
	}
	var _ persistence.Store = st
}
