// Package postgres is the PostgreSQL store of alertd, through pgx
// (github.com/jackc/pgx/v5/stdlib under database/sql). It shares its queries
// with the embedded store (persistence/sqlstore).
package postgres

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/alertd/alertd/persistence/sqlstore"
)

// Pool sizes. The engine writes through a few batching writers and reads
// through caches, so a small pool is enough.
const (
	maxOpenConns    = 16
	maxIdleConns    = 8
	connMaxIdleTime = 5 * time.Minute
	connMaxLifetime = time.Hour
	// connectTimeout applies when the URL sets no connect_timeout.
	connectTimeout = 5 * time.Second
)

// Open connects to the database at url (postgres://... or a key=value DSN),
// checks that it answers, and migrates it. A server that cannot be reached
// gives a one-line error naming host, port and database (never the password).
func Open(ctx context.Context, url string) (*sqlstore.Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad database URL: %s", oneLine(err.Error()))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxIdleTime(connMaxIdleTime)
	db.SetConnMaxLifetime(connMaxLifetime)
	where := fmt.Sprintf("%s/%s", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), cfg.Database)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: cannot reach %s: %s", where, oneLine(err.Error()))
	}
	s, err := sqlstore.New(ctx, db, nil, sqlstore.Postgres)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %s: %w", where, err)
	}
	return s, nil
}

// oneLine folds a multi-line error message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
