package console

import (
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// The sampler records per-second differences, oldest first, keeps the last
// Window of them, and reads a counter that went back as 0.
func TestSamplerRates(t *testing.T) {
	var c Counters
	s := NewSampler(func() Counters { return c })
	t0 := time.Unix(1_800_000_000, 0)
	s.Sample(t0) // baseline
	if len(s.Rates()) != 0 {
		t.Fatalf("rates after the baseline: %v", s.Rates())
	}
	c = Counters{IngestAccepted: 10, Frames: 100, WebhooksDelivered: 1}
	s.Sample(t0.Add(time.Second))
	c.IngestAccepted, c.IngestRejected = 15, 2
	s.Sample(t0.Add(2 * time.Second))
	r := s.Rates()
	if len(r) != 2 || r[0].IngestAccepted != 10 || r[0].Frames != 100 || r[1].IngestAccepted != 5 || r[1].IngestRejected != 2 || r[1].Frames != 0 {
		t.Fatalf("rates %+v", r)
	}
	c.IngestAccepted = 16
	if r[1].At != t0.Add(2*time.Second).UnixMilli() || s.Totals().IngestAccepted != 16 {
		t.Errorf("time %d, totals %+v", r[1].At, s.Totals())
	}
	c.Frames = 0 // a source replaced
	s.Sample(t0.Add(3 * time.Second))
	if last := s.Rates()[2]; last.Frames != 0 {
		t.Errorf("a counter that went back gave %d", last.Frames)
	}
	n := int(Window / time.Second)
	for i := range n + 5 {
		c.IngestAccepted += uint64(i)
		s.Sample(t0.Add(time.Duration(4+i) * time.Second))
	}
	r = s.Rates()
	if len(r) != n || r[len(r)-1].IngestAccepted != uint64(n+4) || r[0].At >= r[1].At {
		t.Errorf("after wrapping: %d samples, last %+v, first two at %d, %d", len(r), r[len(r)-1], r[0].At, r[1].At)
	}
}

// Start runs one goroutine that Stop ends (TestMain checks for leaks).
func TestSamplerStartStop(t *testing.T) {
	s := NewSampler(func() Counters { return Counters{} })
	s.Start()
	s.Stop()
	s.Stop() // twice is fine
	NewSampler(func() Counters { return Counters{} }).Stop()
}

func TestAccountsGroupedNewestFirst(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0).UTC()
	subs := []persistence.Subscription{
		{AccountID: "acc_old", Product: "xg", Plan: "pro", UpdatedAt: t0},
		{AccountID: "acc_new", Product: "dt", Plan: "enterprise", Modules: []string{"realtime"}, UpdatedAt: t0.Add(time.Hour)},
		{AccountID: "acc_new", Product: "cw", UpdatedAt: t0},
	}
	keys := []persistence.APIKey{
		{Hash: []byte{0xab, 0xcd}, Product: "xg", AccountID: "acc_old", State: persistence.KeyActive, CreatedAt: t0, UpdatedAt: t0},
		{Hash: []byte{0x01}, Product: "dt", AccountID: "acc_new", State: persistence.KeyRevoked, CreatedAt: t0, UpdatedAt: t0},
	}
	got := buildAccounts(subs, keys)
	if len(got) != 2 || got[0].AccountID != "acc_new" || got[1].AccountID != "acc_old" {
		t.Fatalf("order %+v", got)
	}
	if s := got[0].Subscriptions; len(s) != 2 || s[0].Product != "cw" || s[1].Product != "dt" {
		t.Errorf("subscriptions of acc_new %+v", s)
	}
	if k := got[1].Keys; len(k) != 1 || k[0].KeyID != "abcd" || k[0].State != persistence.KeyActive {
		t.Errorf("keys of acc_old %+v", k)
	}
}
