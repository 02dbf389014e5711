package embedded_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/persistence/sqlstore"
	"github.com/alertd/alertd/persistence/storetest"
)

func open(t *testing.T, dir string) *sqlstore.Store {
	t.Helper()
	s, err := embedded.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("embedded.Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) persistence.Store { return open(t, t.TempDir()) })
}

func TestReopen(t *testing.T) {
	storetest.RunReopen(t, func(t *testing.T) storetest.Opener {
		dir := t.TempDir()
		return func() (persistence.Store, error) { return embedded.Open(context.Background(), dir) }
	})
}

// TestUpgradeFromGoMigrations: a data dir migrated by the old Go-literal
// steps opens with the embedded SQL files without re-running anything.
func TestUpgradeFromGoMigrations(t *testing.T) {
	storetest.RunUpgrade(t, func(t *testing.T) storetest.UpgradePlace {
		dir := t.TempDir()
		db, err := sql.Open("sqlite", filepath.Join(dir, embedded.FileName)+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return storetest.UpgradePlace{DB: db, Types: sqlstore.SQLite.Types, Schema: sqliteSchema,
			Open: func() (persistence.Store, error) { return embedded.Open(context.Background(), dir) }}
	})
}

// sqliteSchema lists sqlite_master, whitespace collapsed (the old statements
// were indented differently).
func sqliteSchema(db *sql.DB) (string, error) {
	rows, err := db.Query(`SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master
		WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, tbl, text string
		if err := rows.Scan(&typ, &name, &tbl, &text); err != nil {
			return "", err
		}
		b.WriteString(typ + " " + name + " " + tbl + " " + strings.Join(strings.Fields(text), " ") + "\n")
	}
	return b.String(), rows.Err()
}

func TestFileAndSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "data")
	s := open(t, dir)
	if k := s.Kind(); k != "embedded" {
		t.Errorf("Kind() = %q, want embedded", k)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("data dir: %v", err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("data dir mode = %v, want 0700", perm)
	}
	if _, err := os.Stat(filepath.Join(dir, embedded.FileName)); err != nil {
		t.Errorf("database file: %v", err)
	}
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"synchronous":  "1", // NORMAL
		"busy_timeout": "10000",
	} {
		var got string
		if err := s.DB().QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Errorf("PRAGMA %s: %v", pragma, err)
		} else if strings.ToLower(got) != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestMigrationsRecordedOnce(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	s.Close()
	s = open(t, dir)
	checkVersions(t, s)
}

// checkVersions fails unless schema_migrations lists every migration once.
func checkVersions(t *testing.T, s *sqlstore.Store) {
	t.Helper()
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

func TestRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	if _, err := s.DB().Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := embedded.Open(context.Background(), dir)
	if err == nil {
		s2.Close()
		t.Fatal("Open of a database from a newer build succeeded")
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("error = %v, want it to say the schema is newer", err)
	}
}

func TestEmptyDataDir(t *testing.T) {
	if s, err := embedded.Open(context.Background(), ""); err == nil {
		s.Close()
		t.Fatal("Open(\"\") succeeded")
	}
}

func BenchmarkBatches(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) persistence.Store {
		s, err := embedded.Open(context.Background(), b.TempDir())
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
		s, err := embedded.Open(context.Background(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
