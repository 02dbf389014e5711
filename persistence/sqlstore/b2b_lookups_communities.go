package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alertd/alertd/persistence"
)

// ApplyHandleCommunities stores complete memberships in order, in one
// transaction.
func (s *Store) ApplyHandleCommunities(ctx context.Context, lists []persistence.HandleCommunityList) error {
	if len(lists) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, l := range lists {
			if err := s.applyCommunityList(ctx, tx, l.Handle, l.List, l.At); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("apply handle communities: %w", err)
	}
	return nil
}

// applyCommunityList stores one handle's complete membership at at.
func (s *Store) applyCommunityList(ctx context.Context, tx *sql.Tx, handle string, list []persistence.HandleCommunity, at time.Time) error {
	// One row per community, the last listed wins, in id order.
	idx := make(map[string]int, len(list))
	rows := make([]persistence.HandleCommunity, 0, len(list))
	for _, c := range list {
		if i, ok := idx[c.CommunityID]; ok {
			rows[i] = c
			continue
		}
		idx[c.CommunityID] = len(rows)
		rows = append(rows, c)
	}
	slices.SortFunc(rows, func(a, b persistence.HandleCommunity) int { return cmp.Compare(a.CommunityID, b.CommunityID) })
	cur, err := s.txStmt(ctx, tx, `SELECT community_id FROM handle_communities
		WHERE handle = $1 AND is_current = $2 ORDER BY community_id`)
	if err != nil {
		return err
	}
	defer cur.Close()
	res, err := cur.QueryContext(ctx, handle, true)
	if err != nil {
		return err
	}
	var gone []string
	for res.Next() {
		var id string
		if err := res.Scan(&id); err != nil {
			res.Close()
			return err
		}
		if _, listed := idx[id]; !listed {
			gone = append(gone, id)
		}
	}
	res.Close()
	if err := res.Err(); err != nil {
		return err
	}
	for _, id := range gone {
		if _, err := tx.ExecContext(ctx, `UPDATE handle_communities SET is_current = $3
			WHERE handle = $1 AND community_id = $2`, handle, id, false); err != nil {
			return err
		}
	}
	if err := s.execRows(ctx, tx, `INSERT INTO handle_communities (handle, community_id, community_name,
			member_count, creator_screen_name, is_current, first_seen_at, last_seen_at)`,
		`ON CONFLICT (handle, community_id) DO UPDATE SET community_name = excluded.community_name,
			member_count = excluded.member_count, creator_screen_name = excluded.creator_screen_name,
			is_current = excluded.is_current, last_seen_at = excluded.last_seen_at`,
		8, len(rows), func(dst []any, i int) []any {
			c := &rows[i]
			return append(dst, handle, c.CommunityID, c.CommunityName, c.MemberCount, c.CreatorScreenName, true, ms(at), ms(at))
		}); err != nil {
		return err
	}
	return s.execRows(ctx, tx, `INSERT INTO community_catalog (id, name, name_lower, description, member_count, updated_at)`,
		`ON CONFLICT (id) DO UPDATE SET name = excluded.name, name_lower = excluded.name_lower,
			description = excluded.description, member_count = excluded.member_count, updated_at = excluded.updated_at
		WHERE excluded.updated_at >= community_catalog.updated_at`,
		6, len(rows), func(dst []any, i int) []any {
			c := &rows[i]
			return append(dst, c.CommunityID, c.CommunityName, strings.ToLower(c.CommunityName), c.Description, c.MemberCount, ms(at))
		})
}

// HandleCommunities returns handle's memberships, current first, newest first.
func (s *Store) HandleCommunities(ctx context.Context, handle string) ([]persistence.HandleCommunity, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT h.community_id, h.community_name, COALESCE(c.description, ''),
			h.member_count, h.creator_screen_name, h.is_current, h.first_seen_at, h.last_seen_at
		FROM handle_communities h LEFT JOIN community_catalog c ON c.id = h.community_id
		WHERE h.handle = $1 ORDER BY h.is_current DESC, h.first_seen_at DESC, h.community_id`, handle)
	if err != nil {
		return nil, fmt.Errorf("handle communities: %w", err)
	}
	defer rows.Close()
	var out []persistence.HandleCommunity
	for rows.Next() {
		var c persistence.HandleCommunity
		var first, last int64
		if err := rows.Scan(&c.CommunityID, &c.CommunityName, &c.Description, &c.MemberCount, &c.CreatorScreenName,
			&c.IsCurrent, &first, &last); err != nil {
			return nil, fmt.Errorf("handle communities: %w", err)
		}
		c.FirstSeenAt, c.LastSeenAt = fromMS(first), fromMS(last)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("handle communities: %w", err)
	}
	return out, nil
}

// CommunityCatalog returns a page of communities whose name contains
// search, case-insensitively, largest first.
func (s *Store) CommunityCatalog(ctx context.Context, search string, limit, offset int) ([]persistence.CatalogCommunity, error) {
	pattern := "%" + lkLikeEscaper.Replace(strings.ToLower(search)) + "%"
	rows, err := s.r.QueryContext(ctx, `SELECT id, name, description, member_count, updated_at FROM community_catalog
		WHERE name_lower LIKE $1 ESCAPE '\' ORDER BY member_count DESC, id LIMIT $2 OFFSET $3`,
		pattern, limitArg(limit), max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("community catalog: %w", err)
	}
	defer rows.Close()
	var out []persistence.CatalogCommunity
	for rows.Next() {
		var c persistence.CatalogCommunity
		var at int64
		if err := rows.Scan(&c.ID, &c.Name, &c.Description, &c.MemberCount, &at); err != nil {
			return nil, fmt.Errorf("community catalog: %w", err)
		}
		c.UpdatedAt = fromMS(at)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("community catalog: %w", err)
	}
	return out, nil
}

// lkLikeEscaper makes a string match itself literally in LIKE ... ESCAPE '\'.
var lkLikeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
