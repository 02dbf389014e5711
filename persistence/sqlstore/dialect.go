package sqlstore

import (
	"context"
	"database/sql"
	"strings"
)

// Dialect is the little that differs between the backends. Everything else,
// queries included, is the same SQL text: $n placeholders, ON CONFLICT ...
// DO UPDATE, RETURNING, times as epoch milliseconds in BIGINT columns.
type Dialect struct {
	// Name is what Store.Kind returns: "embedded" or "postgres".
	Name string
	// Types fills the {{name}} placeholders of the migration text. Every
	// dialect must define "blob" (a byte string column type) and "serial_pk"
	// (an auto-increment 64-bit primary key column, type and constraint).
	Types map[string]string
	// BatchRows is how many rows one statement of a batch write carries:
	// multi-row statements save round trips to a server; an embedded
	// engine is faster with one prepared single-row statement (BatchRows 1).
	BatchRows int
	// LockMigrations, if set, runs first in the migration transaction and must
	// serialize it against other processes migrating the same database.
	LockMigrations func(ctx context.Context, tx *sql.Tx) error
	// SizeQuery answers one integer: the bytes the database takes (the
	// operator console shows it).
	SizeQuery string
}

// expand fills the {{name}} placeholders of a migration statement.
func (d Dialect) expand(stmt string) string {
	for k, v := range d.Types {
		stmt = strings.ReplaceAll(stmt, "{{"+k+"}}", v)
	}
	return stmt
}

// migrationLockKey is the pg_advisory_xact_lock key of alertd's migrations.
const migrationLockKey = 0x616c65727464 // "alertd"

// Postgres is the dialect of PostgreSQL through pgx.
var Postgres = Dialect{
	Name:      "postgres",
	BatchRows: 256,
	SizeQuery: "SELECT pg_database_size(current_database())",
	Types: map[string]string{
		"blob":      "BYTEA",
		"serial_pk": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
	},
	LockMigrations: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLockKey))
		return err
	},
}

// SQLite is the dialect of the embedded store (modernc.org/sqlite). Open its
// writer with _txlock=immediate: every transaction then takes the write lock
// when it begins, which serializes migrations between processes too.
var SQLite = Dialect{
	Name:      "embedded",
	BatchRows: 1,
	// The main file; the write-ahead log beside it is checkpointed often.
	SizeQuery: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
	Types: map[string]string{
		"blob":      "BLOB",
		"serial_pk": "INTEGER PRIMARY KEY",
	},
}
