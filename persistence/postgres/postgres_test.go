package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/pgtest"
	"github.com/alertd/alertd/persistence/postgres"
	"github.com/alertd/alertd/persistence/sqlstore"
	"github.com/alertd/alertd/persistence/storetest"
)

func open(t *testing.T, url string) *sqlstore.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) persistence.Store { return open(t, pgtest.URL(t)) })
}

func TestReopen(t *testing.T) {
	storetest.RunReopen(t, func(t *testing.T) storetest.Opener {
		url := pgtest.URL(t)
		return func() (persistence.Store, error) { return postgres.Open(context.Background(), url) }
	})
}

func TestKindAndMigrations(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	s := open(t, url)
	if k := s.Kind(); k != "postgres" {
		t.Errorf("Kind() = %q, want postgres", k)
	}
	s.Close()
	s = open(t, url)
	rows, err := s.DB().Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatalf("schema_migrations: %v", err)
	}
	defer rows.Close()
	var got, want []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	for _, m := range sqlstore.AllMigrations() {
		want = append(want, m.Version)
	}
	if !slices.Equal(got, want) {
		t.Errorf("schema_migrations versions = %v, want %v", got, want)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	s := open(t, url)
	if _, err := s.DB().Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := postgres.Open(context.Background(), url)
	if err == nil {
		s2.Close()
		t.Fatal("Open of a database from a newer build succeeded")
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("error = %v, want it to say the schema is newer", err)
	}
}

func TestUnreachableServer(t *testing.T) {
	t.Parallel()
	start := time.Now()
	s, err := postgres.Open(context.Background(), "postgres://alertd:secret@127.0.0.1:1/alertd?sslmode=disable")
	if err == nil {
		s.Close()
		t.Fatal("Open of an unreachable server succeeded")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	if !strings.Contains(msg, "cannot reach 127.0.0.1:1/alertd") {
		t.Errorf("error = %q, want it to name the server", msg)
	}
	if strings.Contains(msg, "secret") {
		t.Errorf("error = %q shows the password", msg)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Open took %v to fail", d)
	}
}

func TestBadURL(t *testing.T) {
	t.Parallel()
	s, err := postgres.Open(context.Background(), "postgres://[::1")
	if err == nil {
		s.Close()
		t.Fatal("Open of a malformed URL succeeded")
	}
}

func BenchmarkBatches(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) persistence.Store {
		s, err := postgres.Open(context.Background(), pgtest.Database(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
