// Package embedded is the default store of alertd: SQLite in one file under
// --data-dir, through modernc.org/sqlite (pure Go, no cgo). It shares its
// queries with the PostgreSQL store (persistence/sqlstore).
package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/alertd/alertd/persistence/sqlstore"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// FileName is the database file inside the data directory.
const FileName = "alertd.db"

// busyTimeoutMS is how long a connection waits for a lock held by another
// connection (or another process) before it fails with SQLITE_BUSY.
const busyTimeoutMS = 10000

// Open opens (creating if needed) the store in dataDir/alertd.db and migrates
// it. The directory is created with mode 0700.
//
// The file is in WAL mode, so readers never block the writer nor each other.
// Writes go through a single connection whose transactions take the write
// lock when they begin (_txlock=immediate), so they queue instead of failing
// with SQLITE_BUSY; plain reads use a separate pool of query-only connections.
func Open(ctx context.Context, dataDir string) (*sqlstore.Store, error) {
	if dataDir == "" {
		return nil, errors.New("embedded store: empty data directory")
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("embedded store: data directory %q may not contain '?' or '#'", dataDir)
	}
	seedNew(ctx, path)
	return open(ctx, dataDir)
}

// open opens the store in dataDir, which exists, and migrates it.
func open(ctx context.Context, dataDir string) (*sqlstore.Store, error) {
	path := filepath.Join(dataDir, FileName)
	common := "_pragma=busy_timeout(" + fmt.Sprint(busyTimeoutMS) + ")&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"

	w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	// Connect the writer first: it turns WAL on before any reader opens.
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("embedded store: open %s: %w", path, err)
	}

	r, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	readers := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	r.SetConnMaxLifetime(0)

	s, err := sqlstore.New(ctx, w, r, sqlstore.SQLite)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("embedded store: %s: %w", path, err)
	}
	return s, nil
}
