package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/alertd/alertd/persistence"
)

const ecaCols = `id, account_id, ticker, token_name, contract_address, creator_address, source, state, created_at, expires_at`

// CreateECAEntry stores a new active entry and returns it with its id.
func (s *Store) CreateECAEntry(ctx context.Context, e persistence.ECAEntry) (persistence.ECAEntry, error) {
	row := s.w.QueryRowContext(ctx, `INSERT INTO eca_entries (account_id, ticker, token_name, contract_address,
		creator_address, source, state, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		RETURNING `+ecaCols,
		e.AccountID, e.Ticker, e.TokenName, e.ContractAddress, e.CreatorAddress, e.Source,
		string(persistence.ECAActive), ms(e.CreatedAt), ms(e.ExpiresAt))
	out, err := scanECA(row)
	if err != nil {
		return persistence.ECAEntry{}, fmt.Errorf("create eca entry: %w", err)
	}
	return out, nil
}

// EndECAEntry moves an active entry of account to state.
func (s *Store) EndECAEntry(ctx context.Context, account string, id int64, state persistence.ECAState, at time.Time) error {
	return endECA(ctx, s.w, account, id, state, at)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func endECA(ctx context.Context, db execer, account string, id int64, state persistence.ECAState, at time.Time) error {
	res, err := db.ExecContext(ctx, `UPDATE eca_entries SET state = $1, ended_at = $2
		WHERE id = $3 AND account_id = $4 AND state = $5`,
		string(state), ms(at), id, account, string(persistence.ECAActive))
	if err != nil {
		return fmt.Errorf("end eca entry: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("end eca entry: %w", err)
	} else if n == 0 {
		return fmt.Errorf("active eca entry %s/%d: %w", account, id, persistence.ErrNotFound)
	}
	return nil
}

// ListActiveECAEntries returns the active entries that expire after now.
func (s *Store) ListActiveECAEntries(ctx context.Context, now time.Time) ([]persistence.ECAEntry, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+ecaCols+` FROM eca_entries WHERE state = $1 AND expires_at > $2
		ORDER BY id`, string(persistence.ECAActive), ms(now))
	if err != nil {
		return nil, fmt.Errorf("list eca entries: %w", err)
	}
	defer rows.Close()
	var out []persistence.ECAEntry
	for rows.Next() {
		e, err := scanECA(rows)
		if err != nil {
			return nil, fmt.Errorf("list eca entries: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ListActiveECAEntriesOf returns the active entries of the accounts named
// that expire after now, oldest first.
func (s *Store) ListActiveECAEntriesOf(ctx context.Context, accounts []string, now time.Time) ([]persistence.ECAEntry, error) {
	var out []persistence.ECAEntry
	err := s.eachOfAccounts(ctx, `SELECT `+ecaCols+` FROM eca_entries WHERE state = $1 AND expires_at > $2
		AND account_id IN %s`, []any{string(persistence.ECAActive), ms(now)}, accounts, func(r *sql.Rows) error {
		e, err := scanECA(r)
		out = append(out, e)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list eca entries of accounts: %w", err)
	}
	slices.SortFunc(out, func(a, b persistence.ECAEntry) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func scanECA(r scanner) (persistence.ECAEntry, error) {
	var e persistence.ECAEntry
	var state string
	var created, expires int64
	if err := r.Scan(&e.ID, &e.AccountID, &e.Ticker, &e.TokenName, &e.ContractAddress, &e.CreatorAddress,
		&e.Source, &state, &created, &expires); err != nil {
		return e, err
	}
	e.State = persistence.ECAState(state)
	e.CreatedAt, e.ExpiresAt = fromMS(created), fromMS(expires)
	return e, nil
}

// RecordECAMatch ends the entry as matched and stores the match.
func (s *Store) RecordECAMatch(ctx context.Context, m persistence.ECAMatch) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := endECA(ctx, tx, m.AccountID, m.EntryID, persistence.ECAMatched, m.MatchedAt); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO eca_matches (account_id, entry_id, matched_at, data)
			VALUES ($1, $2, $3, $4)`, m.AccountID, m.EntryID, ms(m.MatchedAt), blob(m.Data)); err != nil {
			return fmt.Errorf("record eca match: %w", err)
		}
		return nil
	})
}

// ListECAMatches returns the matches of account since `since`, newest first.
func (s *Store) ListECAMatches(ctx context.Context, account string, since time.Time) ([]persistence.ECAMatch, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT account_id, entry_id, matched_at, data FROM eca_matches
		WHERE account_id = $1 AND matched_at >= $2 ORDER BY matched_at DESC, id DESC`, account, msCeil(since))
	if err != nil {
		return nil, fmt.Errorf("list eca matches: %w", err)
	}
	defer rows.Close()
	var out []persistence.ECAMatch
	for rows.Next() {
		var m persistence.ECAMatch
		var at int64
		if err := rows.Scan(&m.AccountID, &m.EntryID, &at, &m.Data); err != nil {
			return nil, fmt.Errorf("list eca matches: %w", err)
		}
		m.MatchedAt, m.Data = fromMS(at), unblob(m.Data)
		out = append(out, m)
	}
	return out, rows.Err()
}

// CountECAMatches is the number of matches account ever had.
func (s *Store) CountECAMatches(ctx context.Context, account string) (int, error) {
	var n int64
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM eca_matches WHERE account_id = $1`, account).Scan(&n); err != nil {
		return 0, fmt.Errorf("count eca matches: %w", err)
	}
	return int(n), nil
}
