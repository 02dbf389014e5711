package account

import (
	"context"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

// TestReloadSeesAnotherWriter: two registries over one store stand for two
// nodes; OnChange hears each change one makes, and Reload brings the other
// up to date (issue, plan change, deactivation).
func TestReloadSeesAnotherWriter(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	a, st := newRegistry(t, &now)
	b := NewRegistry(st, func() time.Time { return now })
	ctx := context.Background()
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	changes := 0
	a.OnChange(func() { changes++ })

	iss, err := a.Issue(ctx, "", protocol.ProductB2B, Changes{})
	if err != nil {
		t.Fatal(err)
	}
	if _, reason := b.Authenticate(iss.Key, protocol.ProductB2B); reason != Unknown {
		t.Fatalf("b knows the key before Reload: %v", reason)
	}
	if err := b.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if _, reason := b.Authenticate(iss.Key, protocol.ProductB2B); reason != OK {
		t.Fatalf("b after Reload: %v, want OK", reason)
	}
	size := 321
	if _, err := a.Change(ctx, iss.Sub.AccountID, protocol.ProductB2B, Changes{MaxHandles: &size}); err != nil {
		t.Fatal(err)
	}
	if err := a.Deactivate(ctx, iss.Key); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if s, ok := b.Subscription(iss.Sub.AccountID, protocol.ProductB2B); !ok || s.MaxHandles != 321 {
		t.Errorf("b's subscription after Reload: %+v", s)
	}
	if _, reason := b.Authenticate(iss.Key, protocol.ProductB2B); reason != Deactivated {
		t.Errorf("b after the deactivation: %v, want Deactivated", reason)
	}
	if changes != 3 {
		t.Errorf("OnChange heard %d changes, want 3", changes)
	}
}
