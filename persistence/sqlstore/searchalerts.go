package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/alertd/alertd/persistence"
)

// CreateSAQuery stores a new query and returns it with its id.
func (s *Store) CreateSAQuery(ctx context.Context, q persistence.SAQuery) (persistence.SAQuery, error) {
	var id int64
	err := s.w.QueryRowContext(ctx, `INSERT INTO sa_queries (account_id, query_text, every, created_at)
		VALUES ($1, $2, $3, $4) RETURNING id`, q.AccountID, q.Text, q.Interval, ms(q.CreatedAt)).Scan(&id)
	if err != nil {
		return persistence.SAQuery{}, fmt.Errorf("create sa query: %w", err)
	}
	q.ID, q.CreatedAt = id, fromMS(ms(q.CreatedAt))
	return q, nil
}

// DeleteSAQuery removes query id of account.
func (s *Store) DeleteSAQuery(ctx context.Context, account string, id int64) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM sa_queries WHERE account_id = $1 AND id = $2`, account, id)
	if err != nil {
		return fmt.Errorf("delete sa query: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete sa query: %w", err)
	} else if n == 0 {
		return fmt.Errorf("sa query %s/%d: %w", account, id, persistence.ErrNotFound)
	}
	return nil
}

// ListSAQueries returns every query by account, then id.
func (s *Store) ListSAQueries(ctx context.Context) ([]persistence.SAQuery, error) {
	var out []persistence.SAQuery
	rows, err := s.r.QueryContext(ctx, `SELECT `+saQueryCols+` FROM sa_queries ORDER BY account_id, id`)
	if err != nil {
		return nil, fmt.Errorf("list sa queries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if out, err = scanSAQuery(rows, out); err != nil {
			return nil, fmt.Errorf("list sa queries: %w", err)
		}
	}
	return out, rows.Err()
}

// ListSAQueriesOf returns the queries of the accounts named, by account,
// then id.
func (s *Store) ListSAQueriesOf(ctx context.Context, accounts []string) ([]persistence.SAQuery, error) {
	var out []persistence.SAQuery
	err := s.eachOfAccounts(ctx, `SELECT `+saQueryCols+` FROM sa_queries WHERE account_id IN %s ORDER BY account_id, id`,
		nil, accounts, func(r *sql.Rows) (err error) {
			out, err = scanSAQuery(r, out)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("list sa queries of accounts: %w", err)
	}
	return out, nil
}

const saQueryCols = `id, account_id, query_text, every, created_at`

// scanSAQuery appends the query of r's row to out.
func scanSAQuery(r scanner, out []persistence.SAQuery) ([]persistence.SAQuery, error) {
	var q persistence.SAQuery
	var created int64
	if err := r.Scan(&q.ID, &q.AccountID, &q.Text, &q.Interval, &created); err != nil {
		return out, err
	}
	q.CreatedAt = fromMS(created)
	return append(out, q), nil
}
