package testkit

import (
	"testing"
	"time"
)

// pollEvery is how often WaitFor looks again.
const pollEvery = 10 * time.Millisecond

// WaitFor polls cond until it reports done, failing t once within has
// passed; last describes the state seen, for the failure message. Use it
// for what happens outside the engine's Sync barrier (a webhook receiver
// hit, a socket slot freed by the transport), never to wait for ingest.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() (done bool, last string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		done, last := cond()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last: %s", what, within, last)
		}
		time.Sleep(pollEvery)
	}
}
