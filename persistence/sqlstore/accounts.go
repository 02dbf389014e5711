package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// CreateAccount makes a new account; persistence.ErrExists if id is taken.
func (s *Store) CreateAccount(ctx context.Context, id string, now time.Time) (persistence.Account, error) {
	res, err := s.w.ExecContext(ctx,
		`INSERT INTO accounts (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
		id, ms(now))
	if err != nil {
		return persistence.Account{}, fmt.Errorf("create account: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return persistence.Account{}, fmt.Errorf("create account: %w", err)
	} else if n == 0 {
		return persistence.Account{}, fmt.Errorf("account %q: %w", id, persistence.ErrExists)
	}
	return persistence.Account{ID: id, CreatedAt: fromMS(ms(now))}, nil
}

// GetAccount returns the account id.
func (s *Store) GetAccount(ctx context.Context, id string) (persistence.Account, error) {
	var created int64
	err := s.r.QueryRowContext(ctx, `SELECT created_at FROM accounts WHERE id = $1`, id).Scan(&created)
	if err != nil {
		return persistence.Account{}, notFound(err, fmt.Sprintf("account %q", id))
	}
	return persistence.Account{ID: id, CreatedAt: fromMS(created)}, nil
}

// accountExists fails with persistence.ErrNotFound unless account id exists.
func accountExists(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = $1`, id).Scan(&one)
	return notFound(err, fmt.Sprintf("account %q", id))
}

const subColumns = `account_id, product, plan, modules, max_handles, max_tweets, max_wallets,
	ca_search_daily_limit, late_delivery, expires_at, created_at, updated_at`

// PutSubscription inserts or replaces the subscription of (AccountID,
// Product). A replaced subscription keeps its first CreatedAt. The account
// must exist (persistence.ErrNotFound otherwise).
func (s *Store) PutSubscription(ctx context.Context, sub persistence.Subscription) error {
	modules, err := encodeList(sub.Modules)
	if err != nil {
		return fmt.Errorf("put subscription: modules: %w", err)
	}
	var caLimit any
	if sub.CASearchDailyLimit != nil {
		caLimit = int64(*sub.CASearchDailyLimit)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := accountExists(ctx, tx, sub.AccountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO subscriptions (`+subColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
			ON CONFLICT (account_id, product) DO UPDATE SET
				plan = excluded.plan, modules = excluded.modules,
				max_handles = excluded.max_handles, max_tweets = excluded.max_tweets,
				max_wallets = excluded.max_wallets,
				ca_search_daily_limit = excluded.ca_search_daily_limit,
				late_delivery = excluded.late_delivery, expires_at = excluded.expires_at,
				updated_at = excluded.updated_at`,
			sub.AccountID, string(sub.Product), sub.Plan, modules,
			int64(sub.MaxHandles), int64(sub.MaxTweets), int64(sub.MaxWallets),
			caLimit, sub.LateDelivery, msPtr(sub.ExpiresAt), ms(sub.CreatedAt), ms(sub.UpdatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("put subscription %s/%s: %w", sub.AccountID, sub.Product, err)
	}
	return nil
}

func scanSubscription(row scanner) (persistence.Subscription, error) {
	var (
		sub              persistence.Subscription
		product, modules string
		maxH, maxT, maxW int64
		caLimit, expires sql.NullInt64
		created, updated int64
	)
	err := row.Scan(&sub.AccountID, &product, &sub.Plan, &modules, &maxH, &maxT, &maxW,
		&caLimit, &sub.LateDelivery, &expires, &created, &updated)
	if err != nil {
		return sub, err
	}
	sub.Product = protocol.Product(product)
	if sub.Modules, err = decodeList(modules); err != nil {
		return sub, fmt.Errorf("subscription %s/%s: modules: %w", sub.AccountID, product, err)
	}
	sub.MaxHandles, sub.MaxTweets, sub.MaxWallets = int(maxH), int(maxT), int(maxW)
	if caLimit.Valid {
		v := int(caLimit.Int64)
		sub.CASearchDailyLimit = &v
	}
	sub.ExpiresAt = fromNullMS(expires)
	sub.CreatedAt, sub.UpdatedAt = fromMS(created), fromMS(updated)
	return sub, nil
}

// GetSubscription returns the subscription of (accountID, p).
func (s *Store) GetSubscription(ctx context.Context, accountID string, p protocol.Product) (persistence.Subscription, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+subColumns+` FROM subscriptions
		WHERE account_id = $1 AND product = $2`, accountID, string(p))
	sub, err := scanSubscription(row)
	if err != nil {
		return persistence.Subscription{}, notFound(err, fmt.Sprintf("subscription %s/%s", accountID, p))
	}
	return sub, nil
}

// ListSubscriptions returns every subscription, by account then product.
func (s *Store) ListSubscriptions(ctx context.Context) ([]persistence.Subscription, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+subColumns+` FROM subscriptions
		ORDER BY account_id, product`)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	defer rows.Close()
	var out []persistence.Subscription
	for rows.Next() {
		sub, err := scanSubscription(rows)
		if err != nil {
			return nil, fmt.Errorf("list subscriptions: %w", err)
		}
		out = append(out, sub)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	return out, nil
}

const keyColumns = `hash, product, account_id, state, created_at, updated_at`

func scanKey(row scanner) (persistence.APIKey, error) {
	var (
		k                persistence.APIKey
		product, state   string
		created, updated int64
	)
	if err := row.Scan(&k.Hash, &product, &k.AccountID, &state, &created, &updated); err != nil {
		return k, err
	}
	k.Product, k.State = protocol.Product(product), persistence.KeyState(state)
	k.CreatedAt, k.UpdatedAt = fromMS(created), fromMS(updated)
	return k, nil
}

func validState(st persistence.KeyState) bool {
	switch st {
	case persistence.KeyActive, persistence.KeyDeactivated, persistence.KeyRevoked:
		return true
	}
	return false
}

// IssueKey stores k as the one active key of its (account, product) pair and
// revokes the pair's earlier keys, in one transaction. k.State is ignored (the
// key is stored active); a zero k.UpdatedAt takes k.CreatedAt, and the
// revoked keys take that time as their UpdatedAt.
func (s *Store) IssueKey(ctx context.Context, k persistence.APIKey) error {
	if len(k.Hash) == 0 {
		return fmt.Errorf("issue key: empty hash")
	}
	updated := k.UpdatedAt
	if updated.IsZero() {
		updated = k.CreatedAt
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Lock the account row (and check that it exists): concurrent issues
		// for one account queue here, so each revokes the key before it.
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET id = id WHERE id = $1`, k.AccountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("account %q: %w", k.AccountID, persistence.ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET state = $1, updated_at = $2
			WHERE account_id = $3 AND product = $4 AND state <> $1`,
			string(persistence.KeyRevoked), ms(updated), k.AccountID, string(k.Product)); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, `INSERT INTO api_keys (`+keyColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (hash) DO NOTHING`,
			k.Hash, string(k.Product), k.AccountID, string(persistence.KeyActive), ms(k.CreatedAt), ms(updated))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("key hash: %w", persistence.ErrExists)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("issue key %s/%s: %w", k.AccountID, k.Product, err)
	}
	return nil
}

// KeyByHash returns the key whose hash is h, in any state.
func (s *Store) KeyByHash(ctx context.Context, h []byte) (persistence.APIKey, error) {
	k, err := scanKey(s.r.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, h))
	if err != nil {
		return persistence.APIKey{}, notFound(err, "key")
	}
	return k, nil
}

// SetKeyState changes the state of the key whose hash is h.
func (s *Store) SetKeyState(ctx context.Context, h []byte, st persistence.KeyState, now time.Time) (persistence.APIKey, error) {
	if !validState(st) {
		return persistence.APIKey{}, fmt.Errorf("set key state: unknown state %q", st)
	}
	k, err := scanKey(s.w.QueryRowContext(ctx, `UPDATE api_keys SET state = $1, updated_at = $2
		WHERE hash = $3 RETURNING `+keyColumns, string(st), ms(now), h))
	if err != nil {
		return persistence.APIKey{}, fmt.Errorf("set key state: %w", notFound(err, "key"))
	}
	return k, nil
}

// ListKeys returns every stored key, oldest first.
func (s *Store) ListKeys(ctx context.Context) ([]persistence.APIKey, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, hash`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []persistence.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}
