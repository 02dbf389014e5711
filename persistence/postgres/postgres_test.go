package postgres_test

import (
	"context"
	"database/sql"
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
	storetest.Run(t, func(t *testing.T) persistence.Store { return open(t, pgtest.Migrated(t)) })
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
	ms, err := sqlstore.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		want = append(want, m.Version)
	}
	if !slices.Equal(got, want) {
		t.Errorf("schema_migrations versions = %v, want %v", got, want)
	}
}

// TestUpgradeFromGoMigrations: a database migrated by the old Go-literal
// steps opens with the embedded SQL files without re-running anything.
func TestUpgradeFromGoMigrations(t *testing.T) {
	t.Parallel()
	storetest.RunUpgrade(t, func(t *testing.T) storetest.UpgradePlace {
		url := pgtest.URL(t)
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return storetest.UpgradePlace{DB: db, Types: sqlstore.Postgres.Types, Schema: pgSchema,
			Open: func() (persistence.Store, error) { return postgres.Open(context.Background(), url) }}
	})
}

// pgSchema lists the columns, constraints and indexes of the public schema.
func pgSchema(db *sql.DB) (string, error) {
	rows, err := db.Query(`
		SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
			COALESCE(column_default, '') || ' ' || is_identity || ' ' || COALESCE(identity_generation, '')
		FROM information_schema.columns WHERE table_schema = 'public'
		UNION ALL
		SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
		FROM pg_constraint WHERE connamespace = 'public'::regnamespace
		UNION ALL
		SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
		ORDER BY 1`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		b.WriteString(line + "\n")
	}
	return b.String(), rows.Err()
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

// BenchmarkWebhookQueue: go test -run '^$' -bench WebhookQueue -benchtime 2000x .
func BenchmarkWebhookQueue(b *testing.B) {
	storetest.BenchWebhookQueue(b, func(b *testing.B) persistence.Store {
		s, err := postgres.Open(context.Background(), pgtest.Database(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
