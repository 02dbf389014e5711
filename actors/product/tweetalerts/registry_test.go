package tweetalerts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// memStore is an in-memory Store (the contract suite covers the real ones).
type memStore struct {
	mu       sync.Mutex
	tracked  []persistence.TrackedHandle
	prefs    map[prefKey]persistence.HandlePrefs
	settings map[string]persistence.TweetAlertsSettings
	hooks    []persistence.Webhook
	failNext bool
}

func newMemStore() *memStore {
	return &memStore{prefs: map[prefKey]persistence.HandlePrefs{}, settings: map[string]persistence.TweetAlertsSettings{}}
}

func (m *memStore) fail() error {
	if m.failNext {
		m.failNext = false
		return errors.New("store down")
	}
	return nil
}

func (m *memStore) TrackHandles(_ context.Context, hs []persistence.TrackedHandle) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return err
	}
	m.tracked = append(m.tracked, hs...)
	return nil
}

func (m *memStore) UntrackHandle(_ context.Context, account, handle string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.tracked)
	m.tracked = slices.DeleteFunc(m.tracked, func(t persistence.TrackedHandle) bool { return t.AccountID == account && t.Handle == handle })
	if n == len(m.tracked) {
		return persistence.ErrNotFound
	}
	if p, ok := m.prefs[prefKey{account, handle}]; ok {
		p.Muted, p.ExcludeReplies, p.ExcludeQuotes, p.ExcludeReposts = false, false, false, false
		m.prefs[prefKey{account, handle}] = p
	}
	return nil
}

func (m *memStore) ListTrackedHandles(context.Context) ([]persistence.TrackedHandle, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.tracked), nil
}

func (m *memStore) PutHandlePrefs(_ context.Context, p persistence.HandlePrefs) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prefs[prefKey{p.AccountID, p.Handle}] = p
	return nil
}

func (m *memStore) ListHandlePrefs(context.Context) ([]persistence.HandlePrefs, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []persistence.HandlePrefs
	for _, p := range m.prefs {
		out = append(out, p)
	}
	return out, nil
}

func (m *memStore) PutTweetAlertsSettings(_ context.Context, s persistence.TweetAlertsSettings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settings[s.AccountID] = s
	return nil
}

func (m *memStore) ListTweetAlertsSettings(context.Context) ([]persistence.TweetAlertsSettings, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []persistence.TweetAlertsSettings
	for _, s := range m.settings {
		out = append(out, s)
	}
	return out, nil
}

func (m *memStore) CreateWebhook(_ context.Context, w persistence.Webhook) (persistence.Webhook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w.ID = int64(len(m.hooks) + 1)
	m.hooks = append(m.hooks, w)
	return w, nil
}

func (m *memStore) ListActiveWebhooks(context.Context) ([]persistence.Webhook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []persistence.Webhook
	for _, w := range m.hooks {
		if w.IsActive {
			out = append(out, w)
		}
	}
	return out, nil
}

func (m *memStore) DeactivateWebhook(_ context.Context, account string, id int64, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.hooks {
		if m.hooks[i].ID == id && m.hooks[i].AccountID == account && m.hooks[i].IsActive {
			m.hooks[i].IsActive = false
			return nil
		}
	}
	return persistence.ErrNotFound
}

func (m *memStore) SetWebhookFailures(_ context.Context, id int64, failures int, disable bool, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.hooks {
		if m.hooks[i].ID == id {
			m.hooks[i].ConsecutiveFailures = failures
			if disable {
				m.hooks[i].IsActive, m.hooks[i].Disabled = false, true
			}
		}
	}
	return nil
}

// events records what a Listener hears.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) { e.mu.Lock(); e.log = append(e.log, s); e.mu.Unlock() }
func (e *events) WebhookAdded(w persistence.Webhook) {
	e.add(fmt.Sprint("added ", w.ID))
}
func (e *events) WebhookRemoved(id int64)          { e.add(fmt.Sprint("removed ", id)) }
func (e *events) Untracked(account, handle string) { e.add("untracked " + account + "/" + handle) }

func handlesOf(l []persistence.TrackedHandle) []string {
	var out []string
	for _, t := range l {
		out = append(out, t.Handle)
	}
	return out
}

func TestTrackRules(t *testing.T) {
	st := newMemStore()
	clock := time.Unix(1_700_000_000, 0)
	r := NewRegistry(st, func() time.Time { clock = clock.Add(time.Second); return clock })
	ev := &events{}
	r.SetListener(ev)
	ctx := context.Background()
	known := func(h string) bool { return h != "ghost" && h != "banned" }

	added, existing, total, err := r.Track(ctx, "a1", []string{"whale", "ghost", "banned", "degen"}, 3, known)
	if err != nil || fmt.Sprint(added, existing, total) != "[whale degen] [] 2" {
		t.Fatalf("first add: %v %v %d %v", added, existing, total, err)
	}
	// One slot left: the first eligible new handle takes it, the rest is skipped.
	added, existing, total, err = r.Track(ctx, "a1", []string{"degen", "alpha", "beta"}, 3, known)
	if err != nil || fmt.Sprint(added, existing, total) != "[alpha] [degen] 3" {
		t.Fatalf("second add: %v %v %d %v", added, existing, total, err)
	}
	if _, _, _, err = r.Track(ctx, "a1", []string{"beta"}, 3, known); !errors.Is(err, ErrPlanFull) {
		t.Fatalf("full plan: err = %v", err)
	}
	if got := handlesOf(r.Tracked("a1")); fmt.Sprint(got) != "[whale degen alpha]" {
		t.Errorf("list %v, want the order of adding", got)
	}
	if _, rank, ok := r.Get("a1", "alpha"); !ok || rank != 2 {
		t.Errorf("rank of alpha %d %v", rank, ok)
	}
	// Keywords survive a delete; mute and filters do not.
	if _, err := r.UpdatePrefs(ctx, "a1", "whale", func(p *persistence.HandlePrefs) {
		p.Keywords, p.Muted, p.ExcludeQuotes = []string{"sol"}, true, true
	}); err != nil {
		t.Fatal(err)
	}
	if total, err := r.Untrack(ctx, "a1", "whale"); err != nil || total != 2 {
		t.Fatalf("untrack: %d %v", total, err)
	}
	if _, err := r.Untrack(ctx, "a1", "whale"); !errors.Is(err, ErrNotTracked) {
		t.Errorf("second untrack: %v", err)
	}
	p := r.Prefs("a1", "whale")
	if fmt.Sprint(p.Keywords) != "[sol]" || p.Muted || p.ExcludeQuotes {
		t.Errorf("prefs after untrack %+v", p)
	}
	if fmt.Sprint(ev.log) != "[untracked a1/whale]" {
		t.Errorf("listener heard %v", ev.log)
	}
	// A store failure changes nothing in memory.
	st.failNext = true
	if _, _, _, err := r.Track(ctx, "a1", []string{"whale"}, 3, known); err == nil {
		t.Fatalf("store failure not reported")
	}
	if r.IsTracked("a1", "whale") {
		t.Errorf("a failed add is tracked in memory")
	}
	// A fresh registry loads the same state.
	r2 := NewRegistry(st, nil)
	if err := r2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := handlesOf(r2.Tracked("a1")); fmt.Sprint(got) != "[degen alpha]" {
		t.Errorf("reloaded list %v", got)
	}
	if fmt.Sprint(r2.Prefs("a1", "whale").Keywords) != "[sol]" {
		t.Errorf("reloaded keywords %v", r2.Prefs("a1", "whale").Keywords)
	}
}

func TestSettingsDefaultsAndPatch(t *testing.T) {
	r := NewRegistry(newMemStore(), nil)
	s := r.Settings("a1")
	if !s.AutoTopics || s.ExcludeReplies || s.ContractsOnly {
		t.Fatalf("defaults %+v", s)
	}
	s, err := r.UpdateSettings(context.Background(), "a1", func(s *persistence.TweetAlertsSettings) { s.ContractsOnly, s.AutoTopics = true, false })
	if err != nil || !s.ContractsOnly || s.AutoTopics || s.AccountID != "a1" {
		t.Fatalf("patched %+v %v", s, err)
	}
	if got := r.Settings("a1"); got != s {
		t.Errorf("read back %+v", got)
	}
}

func TestWebhooksAndMatching(t *testing.T) {
	st := newMemStore()
	r := NewRegistry(st, nil)
	ev := &events{}
	r.SetListener(ev)
	ctx := context.Background()
	all := func(string) bool { return true }
	_, _, _, _ = r.Track(ctx, "a1", []string{"whale", "degen"}, 10, all)
	_, _, _, _ = r.Track(ctx, "a2", []string{"whale"}, 10, all)
	w1, err := r.AddWebhook(ctx, persistence.Webhook{AccountID: "a1", URL: "u1"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	w2, _ := r.AddWebhook(ctx, persistence.Webhook{AccountID: "a1", URL: "u2", FilterHandles: []string{"degen"}}, 2)
	if _, err := r.AddWebhook(ctx, persistence.Webhook{AccountID: "a1", URL: "u3"}, 2); !errors.Is(err, ErrWebhookLimit) {
		t.Fatalf("third webhook: %v", err)
	}
	w3, _ := r.AddWebhook(ctx, persistence.Webhook{AccountID: "a2", URL: "u4", FilterKeywords: []string{"BTC"}}, 1)
	limits := map[string]int{"a1": 10, "a2": 10}
	limit := func(a string) int { return limits[a] }
	match := func(h, text string) string { return fmt.Sprint(r.MatchWebhooks(h, text, limit, nil)) }
	if got := match("whale", "btc pump"); got != fmt.Sprint([]int64{w1.ID, w3.ID}) {
		t.Errorf("whale btc: %s", got)
	}
	if got := match("whale", "eth"); got != fmt.Sprint([]int64{w1.ID}) {
		t.Errorf("whale eth: %s", got)
	}
	if got := match("degen", "x"); got != fmt.Sprint([]int64{w1.ID, w2.ID}) {
		t.Errorf("degen: %s", got)
	}
	if got := match("nobody", "btc"); got != "[]" {
		t.Errorf("untracked handle: %s", got)
	}
	// A downgrade to one tracked account leaves degen (added second) inactive.
	limits["a1"] = 1
	if got := match("degen", "x"); got != "[]" {
		t.Errorf("past the plan limit: %s", got)
	}
	limits["a1"] = 10
	if err := r.DeleteWebhook(ctx, "a2", w1.ID); !errors.Is(err, ErrNoWebhook) {
		t.Errorf("deleting another account's webhook: %v", err)
	}
	if err := r.DeleteWebhook(ctx, "a1", w1.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteWebhook(ctx, "a1", w1.ID); !errors.Is(err, ErrNoWebhook) {
		t.Errorf("second delete: %v", err)
	}
	if got := match("degen", "x"); got != fmt.Sprint([]int64{w2.ID}) {
		t.Errorf("after delete: %s", got)
	}
	// Failures are recorded; disabling removes it and frees the slot.
	if err := r.EndpointHealth(ctx, w2.ID, 4, false); err != nil {
		t.Fatal(err)
	}
	if got := r.Webhooks("a1"); len(got) != 1 || got[0].ConsecutiveFailures != 4 {
		t.Errorf("webhooks %+v", got)
	}
	_ = r.EndpointHealth(ctx, w2.ID, 10, true)
	if got := r.Webhooks("a1"); len(got) != 0 {
		t.Errorf("disabled webhook still listed: %+v", got)
	}
	if _, err := r.AddWebhook(ctx, persistence.Webhook{AccountID: "a1", URL: "u5"}, 1); err != nil {
		t.Errorf("slot not freed: %v", err)
	}
	r2 := NewRegistry(st, nil)
	_ = r2.Load(ctx)
	if got := len(r2.AllWebhooks()); got != 2 {
		t.Errorf("reloaded %d active webhooks, want 2", got)
	}
	if fmt.Sprint(ev.log) != fmt.Sprintf("[added %d added %d added %d removed %d added 4]", w1.ID, w2.ID, w3.ID, w1.ID) {
		t.Errorf("listener heard %v", ev.log)
	}
}

func TestDowngradeWebhooksAndHandles(t *testing.T) {
	r := NewRegistry(newMemStore(), nil)
	ctx := context.Background()
	all := func(string) bool { return true }
	_, _, _, _ = r.Track(ctx, "a1", []string{"old", "new"}, 10, all)
	var ids []int64
	for _, u := range []string{"u1", "u2", "u3"} {
		w, err := r.AddWebhook(ctx, persistence.Webhook{AccountID: "a1", URL: u}, 3)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID)
	}
	hooks, handles := 3, 10
	match := func(h string) string {
		return fmt.Sprint(r.MatchWebhooks(h, "x", func(string) int { return handles }, func(string) int { return hooks }))
	}
	active := func() []int64 {
		var out []int64
		for _, w := range r.ActiveWebhooks("a1", hooks) {
			out = append(out, w.ID)
		}
		return out
	}
	if got := match("old"); got != fmt.Sprint(ids) || fmt.Sprint(active()) != fmt.Sprint(ids) {
		t.Fatalf("within the plan: match %s, active %v", got, active())
	}
	hooks, handles = 1, 1 // a downgrade: the oldest webhook and handle stay
	if got := match("old"); got != fmt.Sprint(ids[:1]) || fmt.Sprint(active()) != fmt.Sprint(ids[:1]) {
		t.Errorf("after a downgrade: match %s, active %v; want only %d", got, active(), ids[0])
	}
	if !r.IsActive("a1", "old", handles) || r.IsActive("a1", "new", handles) || r.IsActive("a1", "nope", handles) {
		t.Errorf("IsActive after a downgrade: the oldest only")
	}
	hooks = 0 // no webhooks on the plan (free, or expired)
	if got := match("old"); got != "[]" || len(active()) != 0 {
		t.Errorf("a plan without webhooks: match %s, active %v", got, active())
	}
	hooks, handles = 3, 10 // back up: all again
	if got := match("new"); got != fmt.Sprint(ids) || !r.IsActive("a1", "new", handles) {
		t.Errorf("after an upgrade: match %s", got)
	}
	// Untracking the oldest moves the next one up: it is the active one now.
	if _, err := r.Untrack(ctx, "a1", "old"); err != nil {
		t.Fatal(err)
	}
	if !r.IsActive("a1", "new", 1) || r.IsActive("a1", "old", 1) {
		t.Errorf("after untracking the oldest: new active %v, old active %v", r.IsActive("a1", "new", 1), r.IsActive("a1", "old", 1))
	}
	r2 := NewRegistry(r.store, nil) // the ranks come back with a reload
	if err := r2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if !r2.IsActive("a1", "new", 1) {
		t.Errorf("after a reload: new not active")
	}
}
