package et

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/product/watchlist/watchtest"
	"github.com/asynkron/protoactor-go/actor"
)

// panicHooks is a webhook sender that panics once when told to: a test
// seam into the detector, nothing from outside can reach it.
type panicHooks struct {
	hooks
	next atomic.Bool
}

func (h *panicHooks) Send(account string, body []byte) {
	if h.next.Swap(false) {
		panic("webhook sender broke")
	}
	h.hooks.Send(account, body)
}

// errorLog keeps the error records logged through it.
type errorLog struct {
	mu   sync.Mutex
	recs []map[string]string
}

func (l *errorLog) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelError }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	l.mu.Lock()
	l.recs = append(l.recs, m)
	l.mu.Unlock()
	return nil
}
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

// TestPanicRestartsFromTheStore injects a panic into the et singleton: it is
// logged with the actor's name and the message's type, the detector restarts
// with the counts reloaded from the store, and the next change is reported
// against them.
func TestPanicRestartsFromTheStore(t *testing.T) {
	logs := &errorLog{}
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	k, err := kit.New(sys, kit.WithLogger(slog.New(logs)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		k.Close()
		sys.Shutdown()
	})
	store := watchtest.NewStore()
	reg := NewRegistry(store, nil)
	if err := reg.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	wh := &panicHooks{}
	det, err := StartDetector(t.Context(), k, &Deps{Registry: reg, Webhooks: wh, Persist: syncPersist{}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, reg: reg, det: det}
	r.track("a", "100")
	r.engagement("100", 1000, 5, 1) // the baseline
	wh.next.Store(true)
	r.engagement("100", 2000, 7, 1) // saved, then the webhook panics
	r.engagement("100", 3000, 9, 1)

	want := `a {"type":"engagement_update","tweet_id":"100","old":{"favorite_count":7,`
	if h := wh.take(); len(h) != 1 || !strings.HasPrefix(h[0], want) || !strings.Contains(h[0], `"new":{"favorite_count":9,`) {
		t.Errorf("webhooks after the restart %q, want one 7 -> 9", h)
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	if len(logs.recs) != 1 {
		t.Fatalf("errors logged %v, want 1", logs.recs)
	}
	if e := logs.recs[0]; e["actor"] != "guardian/et" || e["message"] != "*handle.EngagementChanged" || e["panic"] != "webhook sender broke" {
		t.Errorf("failure logged as %v", e)
	}
}
