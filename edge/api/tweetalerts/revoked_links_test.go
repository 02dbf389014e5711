package tweetalerts

import (
	"testing"
	"time"
)

func TestRevokedLinks(t *testing.T) {
	var r revokedLinks
	now := time.Unix(1_700_000_000, 0)
	a, b := linkRef{42, 1000}, linkRef{43, 2000}
	if r.has(a) {
		t.Fatal("an empty set has a link")
	}
	r.add(a, now.Add(time.Hour), now)
	if !r.has(a) || r.has(linkRef{42, 1001}) {
		t.Fatal("a removed link is not told apart from a later link of the same user")
	}
	// Once no session of a can be alive, adding another drops it.
	r.add(b, now.Add(3*time.Hour), now.Add(2*time.Hour))
	if r.has(a) || !r.has(b) || len(r.m) != 1 {
		t.Fatalf("after expiry: %v", r.m)
	}
}
