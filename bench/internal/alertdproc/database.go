package alertdproc

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// FreshDatabase creates an empty database named prefix_<random> on the
// server of admin (a postgres:// URL, e.g. scripts/testpg.sh's) and returns
// its URL and a function that drops it (connections and all).
func FreshDatabase(ctx context.Context, admin, prefix string) (string, func() error, error) {
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", nil, err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := prefix + "_" + hex.EncodeToString(rnd[:])
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		db.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() error {
		defer db.Close()
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		return nil
	}
	return u.String(), drop, nil
}
