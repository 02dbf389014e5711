package eca

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/delivery/deliverytest"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// memStore is an in-memory Store.
type memStore struct {
	mu      sync.Mutex
	nextID  int64
	entries []persistence.ECAEntry
	matches []persistence.ECAMatch
	ended   []string // "id:state"
}

func (m *memStore) CreateECAEntry(_ context.Context, e persistence.ECAEntry) (persistence.ECAEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	e.ID, e.State = m.nextID, persistence.ECAActive
	m.entries = append(m.entries, e)
	return e, nil
}

func (m *memStore) EndECAEntry(_ context.Context, account string, id int64, state persistence.ECAState, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.endLocked(account, id, state)
}

func (m *memStore) endLocked(account string, id int64, state persistence.ECAState) error {
	for i := range m.entries {
		e := &m.entries[i]
		if e.ID == id && e.AccountID == account && e.State == persistence.ECAActive {
			e.State = state
			m.ended = append(m.ended, fmt.Sprintf("%d:%s", id, state))
			return nil
		}
	}
	return persistence.ErrNotFound
}

func (m *memStore) ListActiveECAEntries(_ context.Context, now time.Time) ([]persistence.ECAEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []persistence.ECAEntry
	for _, e := range m.entries {
		if e.State == persistence.ECAActive && e.ExpiresAt.After(now) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *memStore) ListActiveECAEntriesOf(ctx context.Context, accounts []string, now time.Time) ([]persistence.ECAEntry, error) {
	all, _ := m.ListActiveECAEntries(ctx, now)
	return slices.DeleteFunc(all, func(e persistence.ECAEntry) bool { return !slices.Contains(accounts, e.AccountID) }), nil
}

func (m *memStore) RecordECAMatch(_ context.Context, x persistence.ECAMatch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.endLocked(x.AccountID, x.EntryID, persistence.ECAMatched); err != nil {
		return err
	}
	m.matches = append(m.matches, x)
	return nil
}

func (m *memStore) ListECAMatches(_ context.Context, account string, since time.Time) ([]persistence.ECAMatch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []persistence.ECAMatch
	for i := len(m.matches) - 1; i >= 0; i-- {
		if x := m.matches[i]; x.AccountID == account && !x.MatchedAt.Before(since) {
			out = append(out, x)
		}
	}
	return out, nil
}

func (m *memStore) CountECAMatches(_ context.Context, account string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, x := range m.matches {
		if x.AccountID == account {
			n++
		}
	}
	return n, nil
}

func (m *memStore) endedList() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.ended)
}

type syncJobs struct{}

func (syncJobs) Do(_ string, f func(ctx context.Context) error) { _ = f(context.Background()) }

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func launched(mint, creator, sym, name string) *protocol.LaunchpadObs {
	return &protocol.LaunchpadObs{EventType: protocol.LaunchTokenLaunched, WalletAddress: creator, Mint: mint, Creator: creator,
		TokenSymbol: sym, TokenName: name, BondingCurve: "BC", URI: "https://u", Signature: "SIG"}
}

func hitKeys(hs []hit) string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s/%d/%s", h.entry.AccountID, h.entry.ID, h.matchType))
	}
	return fmt.Sprint(out)
}

func TestWatchlistStates(t *testing.T) {
	ctx := context.Background()
	st := &memStore{}
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	w := NewWatchlist(st, syncJobs{}, 4*time.Hour, clk.now, quiet)

	// (none) -> active; a second active entry is refused.
	e1, err := w.Create(ctx, "a", Criteria{Ticker: "WIF"})
	if err != nil || e1.ID == 0 || !e1.ExpiresAt.Equal(clk.now().Add(4*time.Hour)) || e1.Source != SourceAPI {
		t.Fatalf("create: %+v, %v", e1, err)
	}
	if _, err := w.Create(ctx, "a", Criteria{Ticker: "BONK"}); !errors.Is(err, ErrActiveEntry) {
		t.Fatalf("second active entry: %v", err)
	}
	if _, err := w.Create(ctx, "b", Criteria{TokenName: "dog wif hat"}); err != nil { // another account
		t.Fatal(err)
	}
	// active -> expired: after 4 hours it is no longer listed, matches
	// nothing, and a new entry may be made.
	clk.add(4*time.Hour - time.Millisecond)
	if len(w.Active("a")) != 1 {
		t.Fatal("entry gone before its 4 hours")
	}
	clk.add(time.Millisecond)
	if got := w.Active("a"); len(got) != 0 {
		t.Fatalf("expired entry listed: %+v", got)
	}
	if hs := w.match(launched("M1", "C", "WIF", "Dog Wif Hat"), clk.now()); len(hs) != 0 {
		t.Fatalf("expired entries matched: %s", hitKeys(hs))
	}
	if got := fmt.Sprint(st.endedList()); got != "[1:expired 2:expired]" {
		t.Fatalf("ended %s, want [1:expired 2:expired]", got)
	}
	// active -> removed.
	e3, err := w.Create(ctx, "a", Criteria{ContractAddress: "M3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Remove(ctx, "a", e1.ID); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("remove of an expired entry: %v", err)
	}
	if err := w.Remove(ctx, "b", e3.ID); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("remove of another account's entry: %v", err)
	}
	if err := w.Remove(ctx, "a", e3.ID); err != nil {
		t.Fatal(err)
	}
	if len(w.Active("a")) != 0 {
		t.Fatal("removed entry listed")
	}
	if hs := w.match(launched("M3", "C", "X", "Y"), clk.now()); len(hs) != 0 {
		t.Fatalf("removed entry matched: %s", hitKeys(hs))
	}
	// active -> matched: matching ends the entry; only token launches match;
	// several accounts match one launch.
	e4, _ := w.Create(ctx, "a", Criteria{Ticker: "wif"})
	e5, _ := w.Create(ctx, "b", Criteria{CreatorAddress: "CRE"})
	e6, _ := w.Create(ctx, "c", Criteria{TokenName: "Other"})
	grad := launched("M4", "CRE", "WIF", "Dog")
	grad.EventType = protocol.LaunchGraduated
	if hs := w.match(grad, clk.now()); len(hs) != 0 {
		t.Fatalf("a graduation matched: %s", hitKeys(hs))
	}
	hs := w.match(launched("M4", "CRE", "WIF", "Dog"), clk.now())
	if got, want := hitKeys(hs), fmt.Sprintf("[a/%d/ticker b/%d/creator_address]", e4.ID, e5.ID); got != want {
		t.Fatalf("hits %s, want %s", got, want)
	}
	if len(w.Active("a")) != 0 || len(w.Active("b")) != 0 || len(w.Active("c")) != 1 {
		t.Fatal("matched entries still listed, or the unmatched one gone")
	}
	if hs := w.match(launched("M5", "CRE", "WIF", "Dog"), clk.now()); len(hs) != 0 {
		t.Fatalf("a matched entry matched again: %s", hitKeys(hs))
	}
	// A reload sees the active entries of the store.
	w2 := NewWatchlist(st, syncJobs{}, 4*time.Hour, clk.now, quiet)
	if err := w2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := w2.Active("c"); len(got) != 1 || got[0].ID != e6.ID {
		t.Fatalf("reloaded: %+v", got)
	}
}

func TestDetector(t *testing.T) {
	ctx := context.Background()
	st := &memStore{}
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	hub := delivery.NewHub()
	s, err := New(ctx, quietKit(t), Config{Store: st, Jobs: syncJobs{}, Hub: hub, Expiry: 4 * time.Hour, MatchesTTL: 24 * time.Hour,
		Now: clk.now, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	e, err := s.Watchlist.Create(ctx, "a", Criteria{Ticker: "WIF2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Watchlist.Create(ctx, "b", Criteria{Ticker: "BONK"}); err != nil {
		t.Fatal(err)
	}
	topicA := delivery.AccountTopic(protocol.ProductECA, "a")
	sa, sa2 := deliverytest.Subscribe(t, hub, topicA), deliverytest.Subscribe(t, hub, topicA)
	sb := deliverytest.Subscribe(t, hub, delivery.AccountTopic(protocol.ProductECA, "b"))
	s.Observe(&protocol.Observation{Kind: protocol.KindLaunchpad, Launchpad: launched("MINT", "CRE", "wif2", "Dog Wif Hat Two")})
	got := sa.WaitFrames(t, 1)
	want := fmt.Sprintf(`{"type":"match","data":{"watchlist_entry":{"id":%d,"source":"api","community_name":null,`+
		`"social_handle":null,"added_by_messenger_id":null},"token":{"name":"Dog Wif Hat Two","symbol":"wif2","mint":"MINT",`+
		`"creator":"CRE","bonding_curve":"BC","uri":"https://u","signature":"SIG"},"match_type":"ticker",`+
		`"matched_at":"2026-03-01T12:00:00.000Z"}}`, e.ID)
	if got[0] != want {
		t.Fatalf("frame\n got %s\nwant %s", got[0], want)
	}
	if g2 := sa2.WaitFrames(t, 1); g2[0] != want {
		t.Fatalf("second socket of a: %s", g2[0])
	}
	list, err := s.Matches(ctx, "a")
	if err != nil || len(list) != 1 {
		t.Fatalf("matches %v, %v", list, err)
	}
	var frame struct {
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal([]byte(want), &frame)
	if string(list[0]) != string(frame.Data) {
		t.Fatalf("listed match %s, want %s", list[0], frame.Data)
	}
	if n, _ := s.TotalMatches(ctx, "a"); n != 1 {
		t.Fatalf("total matches %d", n)
	}
	// Matches are listed for MatchesTTL; the total keeps counting them.
	clk.add(24*time.Hour + time.Millisecond)
	if list, _ := s.Matches(ctx, "a"); len(list) != 0 {
		t.Fatalf("match listed after 24 hours: %s", list)
	}
	if n, _ := s.TotalMatches(ctx, "a"); n != 1 {
		t.Fatalf("total matches after 24 hours %d", n)
	}
	// b's entry (now expired) matches nothing; b's socket got nothing.
	hub.Unsubscribe(topicA, sa2)
	if _, err := s.Watchlist.Create(ctx, "a", Criteria{ContractAddress: "MINT9"}); err != nil {
		t.Fatal(err)
	}
	s.Observe(&protocol.Observation{Kind: protocol.KindLaunchpad, Launchpad: launched("MINT9", "CRE", "BONK", "Bonk")})
	sa.Wait(t, 2) // the detector published the second match: sb and sa2 would have it
	if n := len(sb.Events()); n != 0 {
		t.Fatalf("socket of b got %d frames", n)
	}
	if n := len(sa2.Events()); n != 1 {
		t.Fatalf("unsubscribed socket got %d frames", n)
	}
}
