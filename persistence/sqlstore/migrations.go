package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Migration is one versioned step of the schema. Steps are applied in order,
// each at most once, inside one transaction at open; schema_migrations records
// which are done. Never edit a released step: add a new file.
type Migration struct {
	Version int
	Name    string
	// Stmts run in order. {{blob}} and {{serial_pk}} are filled by the dialect.
	Stmts []string
}

// The schema of alertd is the files under migrations/, one per version:
// NNNN_what_it_holds.sql, where NNNN is the version (four digits, from 0001,
// no gaps) and the rest, named by product, is the Name recorded in
// schema_migrations. SplitStatements says how a file is cut into statements.
// Times are epoch milliseconds (BIGINT); lists are JSON text.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the embedded steps in version order. It fails on a file
// name without a version, a gap or a repeated version, or a file the splitter
// refuses: tests open a store, so such a file never ships.
var Migrations = sync.OnceValues(func() ([]Migration, error) {
	return parseMigrations(migrationFiles, "migrations")
})

// parseMigrations reads the *.sql files of dir in fsys.
func parseMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries { // ReadDir sorts by name
		file := e.Name()
		if e.IsDir() || !strings.HasSuffix(file, ".sql") {
			continue
		}
		stem := strings.TrimSuffix(file, ".sql")
		num, name, ok := strings.Cut(stem, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || len(num) != 4 || v < 1 || name == "" {
			return nil, fmt.Errorf("migrations: %s: want NNNN_name.sql", file)
		}
		if want := len(out) + 1; v != want {
			return nil, fmt.Errorf("migrations: %s: version %d, want %d (one file per version, no gaps)", file, v, want)
		}
		text, err := fs.ReadFile(fsys, dir+"/"+file)
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		stmts, err := SplitStatements(string(text))
		if err != nil {
			return nil, fmt.Errorf("migrations: %s: %w", file, err)
		}
		if len(stmts) == 0 {
			return nil, fmt.Errorf("migrations: %s: no statements", file)
		}
		out = append(out, Migration{Version: v, Name: name, Stmts: stmts})
	}
	return out, nil
}

// migrate brings the schema of db up to date with ms, in one transaction.
func migrate(ctx context.Context, db *sql.DB, d Dialect, ms []Migration) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if d.LockMigrations != nil {
		if err := d.LockMigrations(ctx, tx); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    BIGINT PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at BIGINT NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrate: schema_migrations: %w", err)
	}
	done := map[int]bool{}
	latest := 0
	rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("migrate: read versions: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("migrate: read versions: %w", err)
		}
		done[v] = true
		latest = max(latest, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("migrate: read versions: %w", err)
	}
	known := 0
	for i, m := range ms {
		if i > 0 && m.Version <= ms[i-1].Version {
			return fmt.Errorf("migrate: versions out of order at %d", m.Version)
		}
		known = m.Version
	}
	if latest > known {
		return fmt.Errorf("migrate: database schema is at version %d, newer than this build knows (%d)", latest, known)
	}
	for _, m := range ms {
		if done[m.Version] {
			continue
		}
		for _, stmt := range m.Stmts {
			if _, err := tx.ExecContext(ctx, d.expand(stmt)); err != nil {
				return fmt.Errorf("migrate: step %d (%s): %w", m.Version, m.Name, err)
			}
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
			m.Version, m.Name, time.Now().UnixMilli()); err != nil {
			return fmt.Errorf("migrate: record step %d: %w", m.Version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}
