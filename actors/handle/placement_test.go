package handle

import (
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/directory"
	"github.com/asynkron/protoactor-go/actor"
)

// recordingPlacement keeps what the router hands it.
type recordingPlacement struct {
	mu   sync.Mutex
	told []string // identity + ": " + message type
}

func (p *recordingPlacement) Get(string) *actor.PID { return nil }
func (p *recordingPlacement) Tell(identity string, msg any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.told = append(p.told, identity+": "+typeName(msg))
}
func (p *recordingPlacement) RequestFuture(string, any, time.Duration) *actor.Future { return nil }

// TestPlacementTakesHandleActors: with a placement (a cluster), every
// message for a handle actor goes to it, in call order, and none counts in
// the router's backlog or spawns here; user and feed actors stay local.
func TestPlacementTakesHandleActors(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	defer sys.Shutdown()
	p := &recordingPlacement{}
	r := NewRouter(sys, &Deps{Dir: directory.New(), Log: log}, WithPlacement(p), WithPassivateAfter(0))
	defer r.Stop()

	r.Route(decode(t, `{"kind":"post_deleted","handle":"Whale","tweet_id":"1"}`, 1))
	r.Route(decode(t, `{"kind":"following","handle":"whale","users":[]}`, 2))
	r.Tell("whale", KindHandle, &RenamedTo{Handle: "orca"})
	r.Route(decode(t, `{"kind":"engagement","tweet_id":"5"}`, 3))

	want := []string{"whale: *handle.Observe", "whale: *handle.Observe", "whale: *handle.RenamedTo"}
	p.mu.Lock()
	got := append([]string(nil), p.told...)
	p.mu.Unlock()
	if len(got) != len(want) {
		t.Fatalf("placement told %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("placement told %q, want %q", got, want)
		}
	}
	if n := r.Len(); n != 1 {
		t.Errorf("%d live local actors, want 1 (the engagement feed)", n)
	}
}
