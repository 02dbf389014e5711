package session

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBlockerWindows(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	type step struct {
		at        float64 // seconds after t0
		ip, key   string
		remaining int // want from Fail
	}
	for _, c := range []struct {
		name  string
		steps []step
		// checks after the steps
		ipBlockedAt  map[float64]bool // for ip "a"
		keyBlockedAt map[float64]bool // for key "k"
	}{
		{
			name:         "five within the window block ip and key",
			steps:        []step{{0, "a", "k", 4}, {10, "a", "k", 3}, {20, "a", "k", 2}, {30, "a", "k", 1}, {59, "a", "k", 0}},
			ipBlockedAt:  map[float64]bool{59: true, 59 + 3599: true, 59 + 3600: false},
			keyBlockedAt: map[float64]bool{59: true, 59 + 3600: false},
		},
		{
			name:        "failures older than the window do not count",
			steps:       []step{{0, "a", "", 4}, {10, "a", "", 3}, {61, "a", "", 3}, {65, "a", "", 2}, {68, "a", "", 1}, {69, "a", "", 0}},
			ipBlockedAt: map[float64]bool{69: true},
		},
		{
			name: "exactly the window apart: the oldest has expired",
			steps: []step{{0, "a", "", 4}, {1, "a", "", 3}, {2, "a", "", 2}, {3, "a", "", 1},
				{60, "a", "", 1}}, // the failure at 0 is 60 s old: out
			ipBlockedAt: map[float64]bool{60: false},
		},
		{
			name: "retrying while blocked does not extend the block",
			steps: []step{{0, "a", "k", 4}, {1, "a", "k", 3}, {2, "a", "k", 2}, {3, "a", "k", 1}, {4, "a", "k", 0},
				{100, "a", "k", 0}, {3000, "a", "k", 0}, {3603, "a", "k", 0}},
			ipBlockedAt:  map[float64]bool{3603.9: true, 3604: false},
			keyBlockedAt: map[float64]bool{3604: false},
		},
		{
			name:         "other addresses and keys count apart",
			steps:        []step{{0, "a", "k", 4}, {1, "b", "k", 4}, {2, "c", "k", 4}, {3, "d", "k", 4}, {4, "e", "k", 4}},
			ipBlockedAt:  map[float64]bool{5: false},
			keyBlockedAt: map[float64]bool{4: true}, // one key from five addresses
		},
		{
			name:         "no key sent: only the address counts",
			steps:        []step{{0, "a", "", 4}, {1, "a", "", 3}, {2, "a", "", 2}, {3, "a", "", 1}, {4, "a", "", 0}},
			ipBlockedAt:  map[float64]bool{4: true},
			keyBlockedAt: map[float64]bool{4: false},
		},
		{
			name: "a block that ended starts a fresh count",
			steps: []step{{0, "a", "", 4}, {1, "a", "", 3}, {2, "a", "", 2}, {3, "a", "", 1}, {4, "a", "", 0},
				{3605, "a", "", 4}},
			ipBlockedAt: map[float64]bool{3605: false},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBlocker(5, time.Minute, time.Hour, time.Minute)
			for i, s := range c.steps {
				if got := b.Fail(s.ip, s.key, at(s.at)); got != s.remaining {
					t.Fatalf("step %d (%+v): remaining %d, want %d", i, s, got, s.remaining)
				}
			}
			for sec, want := range c.ipBlockedAt {
				until, got := b.IPBlocked("a", at(sec))
				if got != want {
					t.Errorf("IPBlocked(a) at +%vs = %v, want %v", sec, got, want)
				}
				if got && !until.After(at(sec)) {
					t.Errorf("IPBlocked until %v, not after +%vs", until, sec)
				}
			}
			for sec, want := range c.keyBlockedAt {
				if _, got := b.KeyBlocked("k", at(sec)); got != want {
					t.Errorf("KeyBlocked(k) at +%vs = %v, want %v", sec, got, want)
				}
			}
		})
	}
}

func TestBlockerAcceptBlocked(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	b := NewBlocker(2, time.Minute, time.Hour, time.Minute)
	if b.AcceptBlocked("a", t0) {
		t.Fatal("an address that never failed is let through as blocked")
	}
	b.Fail("a", "", t0)
	b.Fail("a", "", t0)
	for _, c := range []struct {
		after time.Duration
		want  bool
	}{{0, true}, {time.Second, false}, {59 * time.Second, false}, {60 * time.Second, true}, {61 * time.Second, false}, {121 * time.Second, true}} {
		if got := b.AcceptBlocked("a", t0.Add(c.after)); got != c.want {
			t.Errorf("AcceptBlocked at +%v = %v, want %v", c.after, got, c.want)
		}
	}
	if until, _ := b.IPBlocked("a", t0.Add(2*time.Minute)); !until.Equal(t0.Add(time.Hour)) {
		t.Errorf("accepting blocked connections moved the block to %v", until)
	}
}

func TestBlockerForgetsOldEntries(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	b := NewBlocker(5, time.Minute, time.Hour, time.Minute)
	for i := 0; i < 3000; i++ {
		b.Fail(fmt.Sprintf("10.0.%d.%d", i/250, i%250), fmt.Sprint("key", i), t0)
	}
	b.Fail("x", "y", t0.Add(2*time.Minute))
	for i := 0; i < 3000; i++ { // each failure forgets a few expired entries
		b.Fail("x", "y", t0.Add(2*time.Minute))
	}
	b.mu.Lock()
	ips, keys := len(b.ips.m), len(b.keys.m)
	b.mu.Unlock()
	if ips > 2 || keys > 2 {
		t.Errorf("after the window: %d addresses and %d keys remembered, want them forgotten", ips, keys)
	}
}

// TestBlockerBounded: a flood of failures from distinct addresses with
// distinct (long) keys within one window keeps each table at MaxEntries,
// and its queue in proportion; keys are held by hash only.
func TestBlockerBounded(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	b := NewBlocker(5, time.Minute, time.Hour, time.Minute)
	b.MaxEntries = 100
	long := strings.Repeat("k", 1000)
	for i := 0; i < 20_000; i++ {
		b.Fail(fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255), long+fmt.Sprint(i), t0.Add(time.Duration(i)*time.Millisecond))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.ips.m) > 100 || len(b.keys.m) > 100 {
		t.Errorf("tables hold %d addresses and %d keys, want at most 100", len(b.ips.m), len(b.keys.m))
	}
	if q := len(b.ips.q) - b.ips.head; q > 100*(b.MaxFailures+1)+1024 {
		t.Errorf("address queue holds %d items", q)
	}
	for id := range b.keys.m {
		if len(id) != 32 {
			t.Fatalf("key table holds a %d-byte id, want a SHA-256", len(id))
		}
	}
	// The newest failures are remembered: the last address has 4 attempts left.
	if left := b.failLocked(&b.ips, "10.0.78.31", t0.Add(20*time.Second)); left != 3 {
		t.Errorf("the newest address has %d attempts left after a second failure, want 3", left)
	}
}

// quotas is the number of quotas holding a slot (nothing may be left).
func quotas(l *ConnLimit) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.quotas)
}

func TestConnLimit(t *testing.T) {
	l := NewConnLimit()
	acct, other := B2BQuota("acct"), B2BQuota("other")
	var slots []*Slot
	for i := 0; i < 5; i++ {
		sl, ok := l.Reserve(acct, 5)
		if !ok {
			t.Fatalf("slot %d refused", i+1)
		}
		if i%2 == 0 {
			sl.Confirm() // reserved and open slots count alike
		}
		slots = append(slots, sl)
	}
	if _, ok := l.Reserve(acct, 5); ok {
		t.Fatal("a sixth slot was granted")
	}
	if _, ok := l.Reserve(other, 5); !ok {
		t.Fatal("another account is limited by this one")
	}
	if _, ok := l.Reserve(ProductQuota("cw", "acct"), 1); !ok {
		t.Fatal("another pool of the same account is limited by this one")
	}
	if l.Held(acct) != 5 || l.Held(other) != 1 {
		t.Fatalf("Held = %d, %d", l.Held(acct), l.Held(other))
	}
	slots[0].Release()
	slots[0].Release() // once only
	if l.Held(acct) != 4 {
		t.Fatalf("a slot released twice counted twice: %d held", l.Held(acct))
	}
	if sl, ok := l.Reserve(acct, 5); !ok {
		t.Fatal("a released slot was not reusable")
	} else {
		slots[0] = sl
	}
	for _, sl := range slots {
		sl.Release()
	}
	var none *Slot
	none.Release() // a session that never got a slot
	if l.Held(acct) != 0 {
		t.Fatalf("Held after releasing all = %d", l.Held(acct))
	}
	l.mu.Lock()
	_, kept := l.quotas[acct]
	l.mu.Unlock()
	if kept {
		t.Error("an account with no slot is still remembered")
	}

	// Concurrent reservations never exceed the limit.
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	race := B2BQuota("race")
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := l.Reserve(race, 5); ok {
				mu.Lock()
				granted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if granted != 5 || l.Held(race) != 5 {
		t.Fatalf("concurrent reservations granted %d (held %d), want 5", granted, l.Held(race))
	}
}
