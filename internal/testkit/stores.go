package testkit

import (
	"testing"

	"github.com/alertd/alertd/persistence/pgtest"
)

// Store is one store a test runs against.
type Store struct {
	Name string
	// DatabaseURL returns the database URL of a fresh store ("" = embedded).
	DatabaseURL func(t *testing.T) string
}

// Stores are both stores: embedded (in the test's data dir) and PostgreSQL
// (a fresh database from pgtest).
var Stores = []Store{
	{"embedded", func(*testing.T) string { return "" }},
	{"postgres", func(t *testing.T) string { return pgtest.Migrated(t) }},
}

// ForEachStore runs f once per store. It is for end-to-end tests: -short
// skips them. The test runs in parallel with the package's other tests of
// this kind, and the stores in parallel too: most of their time is spent
// waiting (timers of the engine, sockets), each on servers of its own.
func ForEachStore(t *testing.T, f func(t *testing.T, st Store)) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	for _, st := range Stores {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			f(t, st)
		})
	}
}
