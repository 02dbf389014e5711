package tweetalerts

import (
	"testing"
	"time"
)

func TestConns(t *testing.T) {
	clock := time.Unix(1000, 0)
	c := NewConns(10*time.Second, func() time.Time { return clock })
	a, ok1 := c.Reserve("xg:a", 2)
	b, ok2 := c.Reserve("xg:a", 2)
	if !ok1 || !ok2 {
		t.Fatal("first two reservations refused")
	}
	if _, ok := c.Reserve("xg:a", 2); ok {
		t.Fatal("third reservation over a limit of 2 accepted")
	}
	if _, ok := c.Reserve("dt:a", 2); !ok {
		t.Fatal("another owner shares the count")
	}
	c.Confirm(a)
	c.Release(b)
	if c.Open("xg:a") != 1 {
		t.Fatalf("open %d, want 1", c.Open("xg:a"))
	}
	// A reservation never confirmed lapses after the grace period.
	_, _ = c.Reserve("xg:a", 2)
	if _, ok := c.Reserve("xg:a", 2); ok {
		t.Fatal("limit ignored")
	}
	clock = clock.Add(11 * time.Second)
	if _, ok := c.Reserve("xg:a", 2); !ok {
		t.Fatal("a lapsed reservation still holds its slot")
	}
	c.Release(a)
	c.Release(a) // twice is harmless
	if c.Open("xg:a") != 1 {
		t.Fatalf("open %d, want 1", c.Open("xg:a"))
	}
}
