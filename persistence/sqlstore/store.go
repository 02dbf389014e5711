// Package sqlstore implements persistence.Store over database/sql. The
// embedded store (modernc.org/sqlite) and the PostgreSQL store (pgx) both use
// it; a Dialect carries the few differences.
//
// Conventions: times are epoch milliseconds (BIGINT) and read back in UTC;
// string lists are JSON text; byte payloads are BYTEA or BLOB. Batch writes run
// in one transaction with one prepared statement per kind of row; rows are
// written in key order so that concurrent batches take row locks in the same
// order.
//
// The schema is the numbered SQL files under migrations/, embedded and applied
// in order at open (migrations.go); databases migrated by builds that kept the
// steps as Go literals have the same versions and open unchanged (their
// schema_migrations rows keep the old names).
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
)

// Store is a persistence.Store over database/sql.
type Store struct {
	w, r    *sql.DB
	d       Dialect
	stmts   sync.Map // SQL text -> *sql.Stmt on w (see prepared)
	noted   sync.Map // SQL text -> struct{}: for prepareNoted (see txStmt)
	closeMu sync.Once
	closeE  error
}

var _ persistence.Store = (*Store)(nil)

// New migrates the database behind w and returns a store over it. Writes and
// transactions go to w; plain reads go to r, or to w when r is nil (SQLite
// keeps one writer connection and a pool of readers). The store owns both
// handles: Close closes them.
func New(ctx context.Context, w, r *sql.DB, d Dialect) (*Store, error) {
	if r == nil {
		r = w
	}
	if err := Migrate(ctx, w, d); err != nil {
		return nil, err
	}
	return &Store{w: w, r: r, d: d}, nil
}

// Migrate applies the pending migrations to w. New does it already; Migrate
// is for tools that only migrate.
func Migrate(ctx context.Context, w *sql.DB, d Dialect) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	return migrate(ctx, w, d, ms)
}

// Kind names the implementation.
func (s *Store) Kind() string { return s.d.Name }

// Size is the bytes the database takes, as the dialect measures it.
func (s *Store) Size(ctx context.Context) (int64, error) {
	var n int64
	if err := s.r.QueryRowContext(ctx, s.d.SizeQuery).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: size: %w", s.d.Name, err)
	}
	return n, nil
}

// Ping checks that both the writer and the readers answer.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.w.PingContext(ctx); err != nil {
		return fmt.Errorf("%s: ping: %w", s.d.Name, err)
	}
	if s.r != s.w {
		if err := s.r.PingContext(ctx); err != nil {
			return fmt.Errorf("%s: ping: %w", s.d.Name, err)
		}
	}
	return nil
}

// Close closes the database handles. It may be called more than once, and on
// a nil *Store (what a failed Open returns, which a caller may hold in a
// persistence.Store).
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.closeMu.Do(func() {
		s.stmts.Range(func(_, v any) bool {
			v.(*sql.Stmt).Close()
			return true
		})
		var errR error
		if s.r != s.w {
			errR = s.r.Close()
		}
		s.closeE = errors.Join(s.w.Close(), errR)
	})
	return s.closeE
}

// DB returns the writer handle, for tools and tests that need raw SQL.
func (s *Store) DB() *sql.DB { return s.w }

// inTx runs fn in a transaction on the writer, committing if fn returns nil;
// inside Batch it runs fn in the batch's transaction.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if tx, ok := ctx.Value(batchKey{}).(*sql.Tx); ok {
		return fn(tx)
	}
	s.prepareNoted(ctx)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// batchKey carries the transaction of a Batch in its context.
type batchKey struct{}

// Batch runs fn with a context in which the store writer's own writes
// (UpsertUsers, SavePosts, PutSnapshots, AppendObservations, AppendTrace)
// join one transaction, committed once when fn returns nil and rolled back
// otherwise: one commit per batch of the writer instead of one per kind
// (actors/writer). Only methods that write through inTx may run inside it;
// one that takes the writer connection on its own (s.w, prepared) would wait
// for the batch's connection forever on the embedded store.
func (s *Store) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, nested := ctx.Value(batchKey{}).(*sql.Tx); nested {
		return fn(ctx)
	}
	s.prepareNoted(ctx)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(context.WithValue(ctx, batchKey{}, tx)); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// prepared returns text prepared on the writer, preparing it the first time.
// Call it outside a transaction (the embedded writer has one connection),
// then use tx.StmtContext: database/sql keeps the statement prepared on the
// connection, so an embedded engine does not parse the SQL again in every
// transaction.
func (s *Store) prepared(ctx context.Context, text string) (*sql.Stmt, error) {
	if v, ok := s.stmts.Load(text); ok {
		return v.(*sql.Stmt), nil
	}
	if _, inBatch := ctx.Value(batchKey{}).(*sql.Tx); inBatch {
		return nil, errors.New("sqlstore: statement prepared inside a Batch (it would wait for the batch's connection)")
	}
	st, err := s.w.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	if v, loaded := s.stmts.LoadOrStore(text, st); loaded {
		st.Close()
		return v.(*sql.Stmt), nil
	}
	return st, nil
}

// txStmt returns text as a statement of tx. Once text is prepared on the
// writer (prepared) it is that statement, which database/sql keeps prepared
// on the connection: the embedded engine parses a batch write's SQL once, not
// in every transaction (it was a tenth of the store writer's CPU under
// ingest). The first time, it prepares text on tx and notes it, and the next
// transaction prepares it on the writer before it begins (prepareNoted): a
// transaction holds the embedded store's one writer connection, so nothing
// can be prepared on the writer inside one. text must be one of a fixed set
// (a call site's own SQL, not built from values): the cache keeps each.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, text string) (*sql.Stmt, error) {
	if v, ok := s.stmts.Load(text); ok {
		return tx.StmtContext(ctx, v.(*sql.Stmt)), nil
	}
	s.noted.Store(text, struct{}{})
	return tx.PrepareContext(ctx, text)
}

// prepareNoted prepares on the writer what txStmt noted. A failure is left
// for the statement's next use, which prepares it on its transaction again
// and reports the error there.
func (s *Store) prepareNoted(ctx context.Context) {
	s.noted.Range(func(k, _ any) bool {
		s.noted.Delete(k)
		_, err := s.prepared(ctx, k.(string))
		return err == nil
	})
}

// notFound turns sql.ErrNoRows into persistence.ErrNotFound, naming what.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, persistence.ErrNotFound)
	}
	return err
}

func ms(t time.Time) int64 { return t.UnixMilli() }

// msCeil rounds t up to a whole millisecond, for lower bounds: stored times
// are whole milliseconds, so ">= msCeil(t)" matches exactly the stored times
// that are not before t.
func msCeil(t time.Time) int64 {
	v := t.UnixMilli()
	if fromMS(v).Before(t) {
		v++
	}
	return v
}

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func msPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

func fromNullMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

// blob stores nil as an empty byte string (payload columns are NOT NULL).
func blob(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// unblob reads an empty byte string back as nil.
func unblob(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func encodeList(l []string) (string, error) {
	if len(l) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(l)
	return string(b), err
}

func decodeList(s string) ([]string, error) {
	var l []string
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, err
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}

// limitArg turns a limit of 0 or less into "no limit".
func limitArg(limit int) int64 {
	if limit <= 0 {
		return math.MaxInt64
	}
	return int64(limit)
}

type scanner interface{ Scan(dest ...any) error }
