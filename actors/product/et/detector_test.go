package et

import (
	"context"
	"sync"
	"testing"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/kit/kittest"
	"github.com/alertd/alertd/actors/product/watchlist/watchtest"
	"github.com/alertd/alertd/protocol"
)

type syncPersist struct{}

func (syncPersist) Do(_ string, f func(ctx context.Context) error) { _ = f(context.Background()) }

type rec struct {
	mu   sync.Mutex
	msgs []string
}

func (r *rec) add(s string) {
	r.mu.Lock()
	r.msgs = append(r.msgs, s)
	r.mu.Unlock()
}

func (r *rec) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.msgs
	r.msgs = nil
	return out
}

type hooks struct{ rec }

func (h *hooks) Send(account string, body []byte) { h.add(account + " " + string(body)) }

// sock keeps what a product socket with its filter would send.
type sock struct {
	rec
	filter delivery.FrameFilter
}

func (s *sock) Deliver(e *delivery.Event) {
	if s.filter.Allows(e) {
		s.add(string(e.ProductFrame()))
	}
}

type rig struct {
	t     *testing.T
	kit   *kit.Kit
	store *watchtest.Store
	reg   *Registry
	hooks *hooks
	hub   *delivery.Hub
	det   *Detector
}

func newRig(t *testing.T) *rig {
	r := &rig{t: t, kit: kittest.Quiet(t), store: watchtest.NewStore(), hooks: &hooks{}, hub: delivery.NewHub()}
	r.reg = NewRegistry(r.store, nil)
	if err := r.reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.start()
	t.Cleanup(func() { r.det.Stop() })
	return r
}

func (r *rig) start() {
	det, err := StartDetector(context.Background(), r.kit, &Deps{Registry: r.reg, Hub: r.hub, Webhooks: r.hooks,
		Persist: syncPersist{}, Store: r.store})
	if err != nil {
		r.t.Fatal(err)
	}
	r.det = det
}

func (r *rig) track(acct string, ids ...string) {
	if _, _, err := r.reg.AddMany(context.Background(), acct, ids, func(string) struct{} { return struct{}{} }, 25); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) engagement(id string, at int64, fav, rt int64) {
	r.det.Hear(&handle.EngagementChanged{At: at,
		Counts: &protocol.EngagementObs{TweetID: id, FavoriteCount: fav, RetweetCount: rt, ReplyCount: 1, QuoteCount: 2, BookmarkCount: 3}})
	if _, _, err := r.det.Engagement(id); err != nil {
		r.t.Fatal(err)
	}
}

func TestUpdatesOnChange(t *testing.T) {
	r := newRig(t)
	r.track("a", "100", "200")
	r.track("b", "100")
	sa, sb := &sock{filter: delivery.NewFrameFilter([]string{"200"}, nil)}, &sock{} // a's socket: opened for 200 only
	r.hub.Subscribe(delivery.AccountTopic(protocol.ProductET, "a"), sa)
	r.hub.Subscribe(delivery.AccountTopic(protocol.ProductET, "b"), sb)
	if _, known, _ := r.det.Engagement("100"); known {
		t.Fatal("counts known before any observation")
	}
	r.engagement("100", 1000, 5, 1) // baseline
	if h := r.hooks.take(); len(h) != 0 {
		t.Fatalf("the baseline sent %v", h)
	}
	st, known, _ := r.det.Engagement("100")
	if !known || st.FavoriteCount != 5 || st.UpdatedAt != 1000 {
		t.Fatalf("after the baseline: %+v %v", st, known)
	}
	r.engagement("100", 2000, 5, 1) // unchanged
	if h := r.hooks.take(); len(h) != 0 {
		t.Fatalf("unchanged counts sent %v", h)
	}
	r.engagement("100", 3000, 6, 1)
	want := `{"type":"engagement_update","tweet_id":"100","old":{"favorite_count":5,"retweet_count":1,"reply_count":1,"quote_count":2,"bookmark_count":3},"new":{"favorite_count":6,"retweet_count":1,"reply_count":1,"quote_count":2,"bookmark_count":3}}`
	h := r.hooks.take()
	if len(h) != 2 || h[0] != "a "+want || h[1] != "b "+want {
		t.Fatalf("webhooks %q", h)
	}
	if f := sa.take(); len(f) != 0 {
		t.Errorf("a socket opened for 200 only got %v", f)
	}
	if f := sb.take(); len(f) != 1 {
		t.Errorf("b's socket got %v, want one frame", f)
	}
	if st, _, _ := r.det.Engagement("100"); st.UpdatedAt != 3000 || st.FavoriteCount != 6 {
		t.Errorf("state %+v", st)
	}
	r.engagement("999", 3000, 1, 1) // untracked
	if _, known, _ := r.det.Engagement("999"); known {
		t.Error("an untracked post got a state")
	}
}

func TestRestartKeepsCountsAndUnwatchForgets(t *testing.T) {
	r := newRig(t)
	r.track("a", "100")
	r.engagement("100", 1000, 5, 1)
	r.det.Stop()
	r.start()
	r.engagement("100", 2000, 7, 1)
	if h := r.hooks.take(); len(h) != 1 {
		t.Fatalf("after a restart a change must be reported against the stored counts: %v", h)
	}
	if err := r.reg.Remove(context.Background(), "a", "100"); err != nil {
		t.Fatal(err)
	}
	r.det.Unwatch("100")
	if _, known, _ := r.det.Engagement("100"); known {
		t.Error("counts kept after the last tracker left")
	}
	if _, ok := r.store.State(protocol.ProductET, "100"); ok {
		t.Error("stored counts kept after the last tracker left")
	}
}
