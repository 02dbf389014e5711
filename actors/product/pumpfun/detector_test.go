package pumpfun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
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
	targets []persistence.PFTarget
	events  []persistence.PFEvent
	fail    error
}

func (m *memStore) AddPFTarget(_ context.Context, t persistence.PFTarget) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.targets = append(m.targets, t)
	return nil
}

func (m *memStore) DeletePFTarget(_ context.Context, account, wallet string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.targets = slices.DeleteFunc(m.targets, func(t persistence.PFTarget) bool { return t.AccountID == account && t.Wallet == wallet })
	return nil
}

func (m *memStore) ListPFTargets(context.Context) ([]persistence.PFTarget, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.targets), nil
}

func (m *memStore) ListPFTargetsOf(ctx context.Context, accounts []string) ([]persistence.PFTarget, error) {
	all, _ := m.ListPFTargets(ctx)
	return slices.DeleteFunc(all, func(t persistence.PFTarget) bool { return !slices.Contains(accounts, t.AccountID) }), nil
}

func (m *memStore) AppendPFEvents(_ context.Context, evs []persistence.PFEvent, keep int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, evs...)
	return nil
}

func (m *memStore) ListPFEvents(_ context.Context, account string, limit int) ([]persistence.PFEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []persistence.PFEvent
	for i := len(m.events) - 1; i >= 0 && len(out) < limit; i-- {
		if m.events[i].AccountID == account {
			out = append(out, m.events[i])
		}
	}
	return out, nil
}

func (m *memStore) eventKeys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, e := range m.events {
		out = append(out, e.AccountID+"/"+e.Wallet+"/"+e.EventType)
	}
	return out
}

// syncJobs runs jobs at once.
type syncJobs struct{}

func (syncJobs) Do(_ string, f func(ctx context.Context) error) { _ = f(context.Background()) }

func target(acc, wallet string, types ...string) persistence.PFTarget {
	return persistence.PFTarget{AccountID: acc, Wallet: wallet, AlertTypes: types}
}

func TestRegistry(t *testing.T) {
	ctx := context.Background()
	st := &memStore{targets: []persistence.PFTarget{target("a", "W0", AlertLivestream)}}
	r := NewRegistry(st)
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(ctx, target("a", "W1", AlertLivestream, AlertGraduation), 2); err != nil {
		t.Fatal(err)
	}
	// livestream is full (2/2): a third livestream wallet is refused, a
	// graduation-only or callouts one is not.
	var le *LimitError
	if err := r.Add(ctx, target("a", "W2", AlertLivestream), 2); !errors.As(err, &le) || le.AlertType != AlertLivestream || le.Used != 2 || le.Limit != 2 {
		t.Fatalf("over the livestream ceiling: %v", err)
	}
	if err := r.Add(ctx, target("a", "W2", AlertGraduation, AlertCallouts), 2); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(ctx, target("a", "W3", AlertGraduation), 2); !errors.As(err, &le) || le.AlertType != AlertGraduation {
		t.Fatalf("over the graduation ceiling: %v", err)
	}
	if err := r.Add(ctx, target("a", "W1", AlertCallouts), 2); !errors.Is(err, persistence.ErrExists) {
		t.Fatalf("duplicate wallet: %v", err)
	}
	if err := r.Add(ctx, target("b", "W1", AlertCallouts), 2); err != nil { // another account
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Counts("a")); got != "map[callouts:1 graduation:2 livestream:2 token_launch:0]" {
		t.Errorf("counts %s", got)
	}
	if got := r.watching("W1", bitOf(AlertGraduation)); fmt.Sprint(got) != "[a]" {
		t.Errorf("graduation watchers of W1: %v", got)
	}
	if got := r.watching("W1", bitOf(AlertCallouts)); fmt.Sprint(got) != "[b]" {
		t.Errorf("callout watchers of W1: %v", got)
	}
	st.fail = errors.New("disk full")
	if err := r.Add(ctx, target("a", "W9", AlertTokenLaunch), 2); err == nil {
		t.Fatal("add with a failing store succeeded")
	}
	if err := r.Remove(ctx, "a", "W1"); err == nil {
		t.Fatal("remove with a failing store succeeded")
	}
	if len(r.List("a")) != 3 {
		t.Fatalf("memory changed by failed writes: %v", r.List("a"))
	}
	st.fail = nil
	if err := r.Remove(ctx, "a", "W1"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, "a", "W1"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("second remove: %v", err)
	}
	var wallets []string
	for _, x := range r.List("a") {
		wallets = append(wallets, x.Wallet)
	}
	if fmt.Sprint(wallets) != "[W0 W2]" || len(r.watching("W1", bitOf(AlertGraduation))) != 0 {
		t.Fatalf("after remove: %v", wallets)
	}
	if err := r.Add(ctx, target("a", "W3", AlertLivestream), 2); err != nil {
		t.Fatalf("a freed slot: %v", err)
	}
	// A fresh registry over the same store sees the same lists.
	r2 := NewRegistry(st)
	if err := r2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r2.Counts("a")) != fmt.Sprint(r.Counts("a")) {
		t.Errorf("reloaded counts %v, want %v", r2.Counts("a"), r.Counts("a"))
	}
}

// openSocket subscribes, as a /v1/pf/ws socket of account does at
// connect, to the wallets of its list with their alert types.
func openSocket(t *testing.T, hub *delivery.Hub, reg *Registry, account string) *deliverytest.Recorder {
	masks := reg.Masks(account)
	var topics []delivery.Topic
	for w := range masks {
		topics = append(topics, delivery.WalletTopic(w))
	}
	return deliverytest.Socket(t, hub, delivery.NewFrameFilter(nil, masks), topics...)
}

// keys summarises frames: event_type/mint[/milestone@multiplier].
func keys(t *testing.T, frames []string) []string {
	t.Helper()
	var out []string
	for _, d := range frameData(t, frames) {
		key := fmt.Sprintf("%v/%v", d["event_type"], d["mint"])
		if m, ok := d["milestone"].(string); ok {
			key += fmt.Sprintf("/%s@%v", m, d["multiplier"])
		}
		out = append(out, key)
	}
	return out
}

func frameData(t *testing.T, frames []string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, f := range frames {
		var v struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(f), &v); err != nil || v.Type != FrameType {
			t.Fatalf("bad frame %s", f)
		}
		out = append(out, v.Data)
	}
	return out
}

func launch(ev, wallet, mint string, at int64) *protocol.Observation {
	return &protocol.Observation{Kind: protocol.KindLaunchpad, DetectedAt: at, Launchpad: &protocol.LaunchpadObs{
		EventType: ev, WalletAddress: wallet, Mint: mint, TokenName: "Tok " + mint, TokenSymbol: "T" + mint, Creator: wallet}}
}

func callout(caller, mint string, base, mcap float64) *protocol.Observation {
	return &protocol.Observation{Kind: protocol.KindCallout, DetectedAt: 1000, Callout: &protocol.CalloutObs{
		CallerWallet: caller, CallerUsername: "user_" + caller, Mint: mint, Creator: "C", TokenName: "N", TokenSymbol: "S",
		CalloutMcap: base, MarketCap: mcap, AmountHeld: 10, CostBasisSOL: 1.5, Thesis: "moon"}}
}

func mcap(mint string, v float64) *protocol.Observation {
	return &protocol.Observation{Kind: protocol.KindMarketCap, DetectedAt: 2000, MarketCap: &protocol.MarketCapObs{Mint: mint, MarketCap: v}}
}

func TestDetector(t *testing.T) {
	ctx := context.Background()
	st := &memStore{}
	now := time.UnixMilli(10_000)
	hub := delivery.NewHub()
	s, err := New(ctx, quietKit(t), Config{Store: st, Jobs: syncJobs{}, Hub: hub, Now: func() time.Time { return now },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Targets.Add(ctx, target("a", "W1", AlertLivestream, AlertTokenLaunch), 3))
	must(s.Targets.Add(ctx, target("a", "CALLER", AlertCallouts), 3))
	must(s.Targets.Add(ctx, target("b", "W1", AlertGraduation), 3))
	sa, sb, sNone := openSocket(t, hub, s.Targets, "a"), openSocket(t, hub, s.Targets, "b"), openSocket(t, hub, s.Targets, "nobody")
	// Added after a's socket connected: a's socket does not see W2.
	must(s.Targets.Add(ctx, target("a", "W2", AlertTokenLaunch), 3))

	s.Observe(launch(protocol.LaunchTokenLaunched, "W1", "M1", 9_000))
	s.Observe(launch(protocol.LaunchGraduated, "W1", "M1", 9_500))
	s.Observe(launch(protocol.LaunchLivestreamStarted, "OTHER", "M9", 9_500))
	s.Observe(launch(protocol.LaunchTokenLaunched, "W2", "M2", 9_600))
	s.Observe(launch(protocol.LaunchLivestreamEnded, "W1", "M1", 9_700))
	s.Observe(callout("CALLER", "M5", 100, 100))
	s.Observe(callout("STRANGER", "M5", 100, 100))
	s.Observe(mcap("M5", 150))
	s.Observe(mcap("M5", 520)) // jumps past 2x and 5x
	s.Observe(mcap("M5", 300)) // dip
	s.Observe(mcap("M5", 600)) // no milestone again
	s.Observe(mcap("M5", 1000))
	s.Observe(mcap("M5", 2000))                 // all fired: forgotten
	s.Observe(callout("CALLER", "M6", 50, 120)) // its own market cap is already past 2x
	got := keys(t, sa.WaitFrames(t, 8))
	want := []string{"token_launched/M1", "livestream_ended/M1", "callout_new/M5", "callout_milestone/M5/2x@5.2",
		"callout_milestone/M5/5x@5.2", "callout_milestone/M5/10x@10", "callout_new/M6", "callout_milestone/M6/2x@2.4"}
	// Frames of one publisher arrive in order.
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("account a frames\n got %v\nwant %v", got, want)
	}
	if got := keys(t, sb.WaitFrames(t, 1)); fmt.Sprint(got) != "[graduated/M1]" {
		t.Fatalf("account b frames %v", got)
	}
	if n := len(sNone.Events()); n != 0 {
		t.Fatalf("a socket with no targets got %d frames", n)
	}
	// Every wallet event of a watched wallet and type is recorded for its
	// account, W2's launch included (a watches it now), callouts are not.
	ev := st.eventKeys()
	sort.Strings(ev)
	if fmt.Sprint(ev) != "[a/W1/livestream_ended a/W1/token_launched a/W2/token_launched b/W1/graduated]" {
		t.Fatalf("recorded events %v", ev)
	}
	list, err := s.Events(ctx, "a")
	must(err)
	if len(list) != 3 || list[0].EventType != protocol.LaunchLivestreamEnded || list[0].DeliveryLatencyMS != 300 ||
		!list[0].DetectedAt.Equal(time.UnixMilli(9_700)) || list[0].TokenName != "Tok M1" {
		t.Fatalf("events of a: %+v", list)
	}
	// The first callout frame, field for field.
	first := frameData(t, sa.Frames())[2]
	b, _ := json.Marshal(first)
	wantFirst := `{"amount_held":10,"caller_username":"user_CALLER","caller_wallet":"CALLER","callout_mcap":100,"cost_basis_sol":1.5,` +
		`"creator":"C","detected_at":1000,"event_type":"callout_new","market_cap":100,"milestone":null,"mint":"M5","multiplier":1,` +
		`"thesis":"moon","token_name":"N","token_symbol":"S"}`
	if string(b) != wantFirst {
		t.Errorf("callout_new data\n got %s\nwant %s", b, wantFirst)
	}
	// Closed sockets get nothing more.
	for w := range s.Targets.Masks("a") {
		hub.Unsubscribe(delivery.WalletTopic(w), sa)
	}
	s.Observe(launch(protocol.LaunchTokenLaunched, "W1", "M7", 9_900))
	s.Observe(launch(protocol.LaunchGraduated, "W1", "M7", 9_900))
	sb.Wait(t, 2) // both events are published: sa would have them by now
	if n := len(sa.Events()); n != len(want) {
		t.Fatalf("unsubscribed socket got %d frames, want %d", n, len(want))
	}
}
