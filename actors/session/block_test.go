package session

import (
	"net/netip"
	"testing"
	"time"
)

func TestBlockAddr(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.5":          "203.0.113.5",
		"::ffff:203.0.113.5":   "203.0.113.5",
		"2001:db8:1:2::1":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9": "2001:db8:1:2::/64",
	} {
		if got := BlockAddr(netip.MustParseAddr(in)); got != want {
			t.Errorf("BlockAddr(%s) = %s, want %s", in, got, want)
		}
	}
	if BlockAddr(netip.Addr{}) != "" {
		t.Error("an unknown address has a block key")
	}
}

// TestBlockerShared: failures recorded on one blocker and heard by another
// (Shared, FailElsewhere: two nodes) add up to one block, of the address
// and of the key, on both; the key travels as its SHA-256 only.
func TestBlockerShared(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := NewBlocker(4, time.Minute, time.Hour, time.Minute)
	b := NewBlocker(4, time.Minute, time.Hour, time.Minute)
	wire := func(from, to *Blocker) {
		from.Shared = func(ip, keyID string) {
			if keyID == "dt_secret" {
				t.Errorf("the key itself was shared")
			}
			to.FailElsewhere(ip, keyID, now)
		}
	}
	wire(a, b)
	wire(b, a)
	if left := a.Fail("192.0.2.1", "dt_secret", now); left != 3 {
		t.Fatalf("first failure on a: %d left, want 3", left)
	}
	if left := b.Fail("192.0.2.1", "dt_secret", now); left != 2 {
		t.Fatalf("second failure, on b: %d left, want 2 (a's counted)", left)
	}
	a.Fail("192.0.2.1", "", now)
	if left := b.Fail("192.0.2.1", "dt_secret", now); left != 0 {
		t.Fatalf("fourth failure, on b: %d left, want 0 (blocked)", left)
	}
	for name, bl := range map[string]*Blocker{"a": a, "b": b} {
		if _, blocked := bl.IPBlocked("192.0.2.1", now); !blocked {
			t.Errorf("%s: the address is not blocked", name)
		}
		if _, blocked := bl.KeyBlocked("dt_secret", now); blocked {
			t.Errorf("%s: the key is blocked after 3 failures with it, want 4", name)
		}
	}
	a.Fail("198.51.100.7", "dt_secret", now)
	if _, blocked := b.KeyBlocked("dt_secret", now); !blocked {
		t.Errorf("b: the key is not blocked after its fourth failure (on a)")
	}
}
