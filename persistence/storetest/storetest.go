// Package storetest is the contract suite of persistence.Store: every
// implementation runs it (the embedded store and PostgreSQL).
//
//	func TestContract(t *testing.T) { storetest.Run(t, openFresh) }
//	func TestReopen(t *testing.T)   { storetest.RunReopen(t, newLocation) }
//	func TestUpgrade(t *testing.T)  { storetest.RunUpgrade(t, newPlace) }
//
// What the suite holds an implementation to, beyond the comments of
// persistence/store.go:
//   - times come back in UTC, equal to what was stored to the millisecond
//     (the suite stores whole milliseconds);
//   - nil and empty lists and byte strings come back as nil;
//   - missing records give errors for which errors.Is(err,
//     persistence.ErrNotFound) holds; creating a taken account id or key hash
//     gives persistence.ErrExists;
//   - a replaced subscription keeps its first CreatedAt;
//   - a handle taken over by another id leaves the old id in the directory,
//     without that handle; handles are matched case-insensitively;
//   - observations with the same DetectedAt list in the order appended;
//   - concurrent batch writes, overlapping ones included, all succeed.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// Run runs the contract suite. open must return a new, empty store each time
// it is called, and close it when t ends; the suite may call Close itself too,
// so Close must tolerate a second call. Subtests run in parallel.
func Run(t *testing.T, open func(t *testing.T) persistence.Store) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"basics", basicsTests},
		{"accounts", accountTests},
		{"subscriptions", subscriptionTests},
		{"keys", keyTests},
		{"users", userTests},
		{"posts", postTests},
		{"snapshots", snapshotTests},
		{"observations", observationTests},
		{"concurrency", concurrencyTests},
		{"targets", targetTests},
		{"trace", traceTests},
		{"casearch", caSearchTests},
		{"tweetalerts", tweetAlertsTests},
		{"webhook log", webhookLogTests},
		{"retention", retentionTests},
		{"b2b lookups", lookupTests},
		{"watch (cw, ct, et)", watchTests},
		{"stored webhooks", storedWebhookTests},
		{"trending", trendingTests},
		{"pumpfun", pumpFunTests},
		{"eca", ecaTests},
		{"searchalerts", searchAlertsTests},
		{"chat", chatTests},
		{"per-account reads", byAccountTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, open(t))
				})
			}
		})
	}
}

// RunReopen runs the durability tests. location must make a new, empty place
// for a store (a directory, a database) and return a function that opens a
// store there. The suite calls that function several times, concurrently
// too, and every store it returns must see the same data; the suite closes
// the stores.
func RunReopen(t *testing.T, location func(t *testing.T) (open func() (persistence.Store, error))) {
	for _, tc := range reopenTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, location(t))
		})
	}
}

// Opener opens a store on one place (see RunReopen).
type Opener = func() (persistence.Store, error)

type test struct {
	name string
	run  func(t *testing.T, s persistence.Store)
}

type reopenTest struct {
	name string
	run  func(t *testing.T, open Opener)
}

var basicsTests = []test{
	{"kind and ping", func(t *testing.T, s persistence.Store) {
		switch k := s.Kind(); k {
		case "embedded", "postgres":
		default:
			t.Errorf("Kind() = %q, want embedded or postgres", k)
		}
		if err := s.Ping(t.Context()); err != nil {
			t.Errorf("Ping: %v", err)
		}
		// The operator console shows the size; both stores can say it.
		sz, ok := s.(interface {
			Size(context.Context) (int64, error)
		})
		if !ok {
			t.Fatalf("%T has no Size", s)
		}
		if n, err := sz.Size(t.Context()); err != nil || n <= 0 {
			t.Errorf("Size = %d, %v; want a positive size", n, err)
		}
	}},
	{"close twice", func(t *testing.T, s persistence.Store) {
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		_ = s.Close() // must not panic
		if err := s.Ping(t.Context()); err == nil {
			t.Errorf("Ping after Close succeeded")
		}
	}},
}

// base is the suite's reference time: whole milliseconds, as stores keep them.
var base = time.Date(2026, 3, 1, 12, 0, 0, 123_000_000, time.UTC)

// at is base plus d.
func at(d time.Duration) time.Time { return base.Add(d) }

func ptr[T any](v T) *T { return &v }

// checkTime fails unless got is the instant want, in UTC.
func checkTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	} else if got.Location() != time.UTC {
		t.Errorf("%s = %v: location %v, want UTC", what, got, got.Location())
	}
}

// checkNotFound fails unless err is (wraps) persistence.ErrNotFound.
func checkNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, persistence.ErrNotFound) {
		t.Errorf("%s: err = %v, want persistence.ErrNotFound", what, err)
	}
}

// must fails the test at once on err.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
