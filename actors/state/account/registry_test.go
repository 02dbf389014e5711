package account

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
)

func newRegistry(t *testing.T, now *time.Time) (*Registry, persistence.Store) {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := NewRegistry(st, func() time.Time { return *now })
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, st
}

func TestIssueAuthenticateRevoke(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	r, st := newRegistry(t, &now)
	ctx := context.Background()
	plan := "pro"
	iss, err := r.Issue(ctx, "", protocol.ProductB2B, Changes{Plan: &plan})
	if err != nil {
		t.Fatal(err)
	}
	if iss.Sub.Plan != "pro" || len(iss.Sub.Modules) != 3 || iss.Sub.MaxHandles != 100 {
		t.Fatalf("tier defaults not applied: %+v", iss.Sub)
	}
	p, reason := r.Authenticate(iss.Key, protocol.ProductB2B)
	if reason != OK || p.AccountID != iss.Sub.AccountID || p.Product != protocol.ProductB2B {
		t.Fatalf("fresh key refused: %v %+v", reason, p)
	}
	if _, reason := r.Authenticate(iss.Key, protocol.ProductCW); reason != Malformed {
		t.Fatalf("dt key on cw: %v, want Malformed", reason)
	}
	if _, reason := r.Authenticate(NewKey(protocol.ProductB2B), protocol.ProductB2B); reason != Unknown {
		t.Fatalf("never-issued key: %v, want Unknown", reason)
	}
	if _, reason := r.Authenticate("", protocol.ProductB2B); reason != Missing {
		t.Fatalf("empty key: %v, want Missing", reason)
	}
	again, err := r.Issue(ctx, iss.Sub.AccountID, protocol.ProductB2B, Changes{})
	if err != nil {
		t.Fatal(err)
	}
	if _, reason := r.Authenticate(iss.Key, protocol.ProductB2B); reason != Unknown {
		t.Fatalf("superseded key: %v, want Unknown", reason)
	}
	if again.Sub.Plan != "pro" {
		t.Fatalf("reissue lost the plan: %+v", again.Sub)
	}
	if err := r.Deactivate(ctx, again.Key); err != nil {
		t.Fatal(err)
	}
	if _, reason := r.Authenticate(again.Key, protocol.ProductB2B); reason != Deactivated {
		t.Fatalf("deactivated key: %v", reason)
	}
	if err := r.Deactivate(ctx, iss.Key); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("deactivating a revoked key: %v", err)
	}

	// A second registry over the same store sees the same states.
	r2 := NewRegistry(st, func() time.Time { return now })
	if err := r2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, reason := r2.Authenticate(again.Key, protocol.ProductB2B); reason != Deactivated {
		t.Fatalf("reloaded deactivated key: %v", reason)
	}
	if _, reason := r2.Authenticate(iss.Key, protocol.ProductB2B); reason != Unknown {
		t.Fatalf("reloaded revoked key: %v", reason)
	}
}

func TestExpiryAndRenewal(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	r, _ := newRegistry(t, &now)
	ctx := context.Background()
	end := now.Add(time.Hour)
	endp := &end
	iss, err := r.Issue(ctx, "", protocol.ProductTweetAlerts, Changes{ExpiresAt: &endp})
	if err != nil {
		t.Fatal(err)
	}
	if _, reason := r.Authenticate(iss.Key, protocol.ProductTweetAlerts); reason != OK {
		t.Fatalf("before expiry: %v", reason)
	}
	now = now.Add(2 * time.Hour)
	p, reason := r.Authenticate(iss.Key, protocol.ProductTweetAlerts)
	if reason != Expired || p.Sub == nil {
		t.Fatalf("after expiry: %v", reason)
	}
	var none *time.Time
	if _, err := r.Change(ctx, iss.Sub.AccountID, protocol.ProductTweetAlerts, Changes{ExpiresAt: &none}); err != nil {
		t.Fatal(err)
	}
	if _, reason := r.Authenticate(iss.Key, protocol.ProductTweetAlerts); reason != OK {
		t.Fatalf("after renewal the same key: %v", reason)
	}
}

func TestChangesValidation(t *testing.T) {
	i := func(n int) *int { return &n }
	s := func(v string) *string { return &v }
	mods := []string{"realtime", "telepathy"}
	cases := []struct {
		p protocol.Product
		c Changes
	}{
		{protocol.ProductTweetAlerts, Changes{Plan: s("platinum")}},
		{protocol.ProductB2B, Changes{Plan: s("ultra")}},
		{protocol.ProductB2B, Changes{MaxHandles: i(1001)}},
		{protocol.ProductB2B, Changes{Modules: &mods}},
		{protocol.ProductB2B, Changes{MaxTweets: i(25)}},
		{protocol.ProductCW, Changes{MaxHandles: i(30)}},
		{protocol.ProductET, Changes{MaxTweets: i(30)}},
		{protocol.ProductPumpFun, Changes{MaxWallets: i(5)}},
		{protocol.ProductTweetAlerts, Changes{LateDelivery: new(bool)}},
	}
	for _, c := range cases {
		s := defaults("a", c.p, time.Now())
		if err := c.c.Apply(&s); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s %+v: got %v, want ErrInvalid", c.p, c.c, err)
		}
	}
	sub := defaults("a", protocol.ProductCW, time.Now())
	if err := (&Changes{MaxHandles: i(200)}).Apply(&sub); err != nil || sub.MaxHandles != 200 {
		t.Fatalf("valid cw size refused: %v %d", err, sub.MaxHandles)
	}
}

func TestWindow(t *testing.T) {
	var w Window
	t0 := time.Unix(100, 0)
	for i := 0; i < 3; i++ {
		if ok, _ := w.Allow(t0, time.Second, 3); !ok {
			t.Fatalf("request %d refused", i)
		}
	}
	ok, wait := w.Allow(t0.Add(400*time.Millisecond), time.Second, 3)
	if ok || wait != 600*time.Millisecond {
		t.Fatalf("4th in window: ok=%v wait=%v", ok, wait)
	}
	if ok, _ := w.Allow(t0.Add(time.Second), time.Second, 3); !ok {
		t.Fatal("new window refused")
	}
}

// TestLimiterIsTheAccountsWindow: a caller without a key (a Telegram
// dashboard session) gets the very window its account's keys count in.
func TestLimiterIsTheAccountsWindow(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	r, _ := newRegistry(t, &now)
	ctx := context.Background()
	iss, err := r.Issue(ctx, "", protocol.ProductTweetAlerts, Changes{})
	if err != nil {
		t.Fatal(err)
	}
	p, reason := r.Authenticate(iss.Key, protocol.ProductTweetAlerts)
	if reason != OK || p.Limiter == nil {
		t.Fatalf("authenticate: %v %+v", reason, p)
	}
	if w := r.Limiter(iss.Sub.AccountID); w != p.Limiter {
		t.Errorf("Limiter(%s) is not the window its key counts in", iss.Sub.AccountID)
	}
	if w := r.Limiter("acc_nokeys"); w == nil || r.Limiter("acc_nokeys") != w {
		t.Errorf("Limiter of an account without keys is not one window")
	}
}
