package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// accountsPerQuery bounds the placeholders of one per-account read (SQLite
// allows 32,766 variables; PostgreSQL 65,535).
const accountsPerQuery = 500

// eachOfAccounts runs query, whose one %s becomes "(...)" with a
// placeholder per account after args, once per chunk of the accounts named
// (sorted and deduplicated, so chunks come back in account order), and hands
// every row to scan. No accounts: no query. It serves a cluster's reload of
// one registry's accounts, O(accounts) instead of the whole table.
func (s *Store) eachOfAccounts(ctx context.Context, query string, args []any, accounts []string, scan func(*sql.Rows) error) error {
	accounts = slices.Compact(slices.Sorted(slices.Values(accounts)))
	for chunk := range slices.Chunk(accounts, accountsPerQuery) {
		a := slices.Grow(slices.Clone(args), len(chunk))
		for _, acct := range chunk {
			a = append(a, acct)
		}
		rows, err := s.r.QueryContext(ctx, fmt.Sprintf(query, placeholdersFrom(len(args)+1, len(chunk))), a...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// eachRow runs query with args and hands every row to scan.
func (s *Store) eachRow(ctx context.Context, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
