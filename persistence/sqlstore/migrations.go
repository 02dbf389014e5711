package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// Migration is one versioned step of the schema. Steps are applied in order,
// each at most once, inside one transaction at open; schema_migrations records
// which are done. Never edit a released step: append a new one.
type Migration struct {
	Version int
	Name    string
	// Stmts run in order. {{blob}} and {{serial_pk}} are filled by the dialect.
	Stmts []string
}

// Migrations is the schema of alertd, oldest first. Times are epoch
// milliseconds (BIGINT); lists are JSON text.
var Migrations = []Migration{
	{
		Version: 1,
		Name:    "initial schema",
		Stmts: []string{
			`CREATE TABLE accounts (
				id         TEXT PRIMARY KEY,
				created_at BIGINT NOT NULL
			)`,
			`CREATE TABLE subscriptions (
				account_id            TEXT NOT NULL REFERENCES accounts (id),
				product               TEXT NOT NULL,
				plan                  TEXT NOT NULL,
				modules               TEXT NOT NULL,
				max_handles           BIGINT NOT NULL,
				max_tweets            BIGINT NOT NULL,
				max_wallets           BIGINT NOT NULL,
				ca_search_daily_limit BIGINT,
				late_delivery         BOOLEAN NOT NULL,
				expires_at            BIGINT,
				created_at            BIGINT NOT NULL,
				updated_at            BIGINT NOT NULL,
				PRIMARY KEY (account_id, product)
			)`,
			`CREATE TABLE api_keys (
				hash       {{blob}} PRIMARY KEY,
				product    TEXT NOT NULL,
				account_id TEXT NOT NULL REFERENCES accounts (id),
				state      TEXT NOT NULL CHECK (state IN ('active', 'deactivated', 'revoked')),
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE INDEX api_keys_account_product ON api_keys (account_id, product)`,
			// At most one active key per (account, product).
			`CREATE UNIQUE INDEX api_keys_one_active ON api_keys (account_id, product) WHERE state = 'active'`,
			`CREATE TABLE users (
				id         TEXT PRIMARY KEY,
				handle     TEXT,
				suspended  BOOLEAN NOT NULL,
				categories TEXT NOT NULL,
				snapshot   {{blob}} NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE UNIQUE INDEX users_handle ON users (handle)`,
			`CREATE TABLE posts (
				id          TEXT PRIMARY KEY,
				handle      TEXT NOT NULL,
				created_at  BIGINT NOT NULL,
				detected_at BIGINT NOT NULL,
				data        {{blob}} NOT NULL
			)`,
			`CREATE INDEX posts_handle_created ON posts (handle, created_at DESC)`,
			`CREATE TABLE snapshots (
				handle      TEXT NOT NULL,
				kind        TEXT NOT NULL,
				data        {{blob}} NOT NULL,
				observed_at BIGINT NOT NULL,
				PRIMARY KEY (handle, kind)
			)`,
			`CREATE TABLE observations (
				id          {{serial_pk}},
				kind        TEXT NOT NULL,
				key         TEXT NOT NULL,
				detected_at BIGINT NOT NULL,
				data        {{blob}} NOT NULL
			)`,
			`CREATE INDEX observations_kind_detected ON observations (kind, detected_at)`,
		},
	},
	{
		Version: 2,
		Name:    "B2B targets and event trace records",
		Stmts: []string{
			`CREATE TABLE targets (
				id             {{serial_pk}},
				account_id     TEXT NOT NULL REFERENCES accounts (id),
				handle         TEXT NOT NULL,
				display_name   TEXT NOT NULL,
				social_user_id TEXT,
				is_active      BOOLEAN NOT NULL,
				created_at     BIGINT NOT NULL
			)`,
			`CREATE UNIQUE INDEX targets_account_handle ON targets (account_id, handle)`,
			`CREATE TABLE trace (
				id         {{serial_pk}},
				event_id   TEXT NOT NULL,
				event      TEXT NOT NULL,
				handle     TEXT NOT NULL,
				event_time BIGINT NOT NULL,
				data       {{blob}} NOT NULL
			)`,
			`CREATE INDEX trace_handle_time ON trace (handle, event_time)`,
		},
	},
}

// Feature migrations register themselves from their own files with
// Register, each under the version assigned to it, so that features can be
// built side by side. AllMigrations returns everything in version order.
var registered []Migration

// Register adds feature migrations (call from an init function).
func Register(ms ...Migration) { registered = append(registered, ms...) }

// AllMigrations is Migrations plus the registered steps, in version order.
func AllMigrations() []Migration {
	all := append(append([]Migration(nil), Migrations...), registered...)
	slices.SortStableFunc(all, func(a, b Migration) int { return a.Version - b.Version })
	return all
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
