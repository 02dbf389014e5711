package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
)

// pruneSQL deletes up to $2 rows older than $1 (epoch ms), oldest first,
// through each table's index on its time column (migration 0008; posts use
// posts_created). The subquery form works on both dialects (SQLite has no
// DELETE ... LIMIT by default).
var pruneSQL = map[persistence.Prunable]string{
	persistence.PrunePosts: `DELETE FROM posts WHERE id IN (
		SELECT id FROM posts WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
	persistence.PruneObservations: `DELETE FROM observations WHERE id IN (
		SELECT id FROM observations WHERE detected_at < $1 ORDER BY detected_at LIMIT $2)`,
	persistence.PruneTrace: `DELETE FROM trace WHERE id IN (
		SELECT id FROM trace WHERE event_time < $1 ORDER BY event_time LIMIT $2)`,
	persistence.PruneProfileHistory: `DELETE FROM profile_history WHERE id IN (
		SELECT id FROM profile_history WHERE scraped_at < $1 ORDER BY scraped_at LIMIT $2)`,
	persistence.PruneSocialChanges: `DELETE FROM social_changes WHERE id IN (
		SELECT id FROM social_changes WHERE changed_at < $1 ORDER BY changed_at LIMIT $2)`,
	persistence.PruneDeliveries: `DELETE FROM webhook_deliveries WHERE seq IN (
		SELECT seq FROM webhook_deliveries WHERE state <> 'queued' AND created_at < $1 ORDER BY created_at LIMIT $2)`,
	persistence.PruneAttempts: `DELETE FROM webhook_attempts WHERE id IN (
		SELECT id FROM webhook_attempts WHERE at < $1 ORDER BY at LIMIT $2)`,
	// A body goes once no delivery points at it: after retention deleted
	// its finished deliveries (a queued one keeps it, however old).
	persistence.PruneBodies: `DELETE FROM webhook_bodies WHERE id IN (
		SELECT id FROM webhook_bodies b WHERE created_at < $1
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.body_id = b.id)
		ORDER BY created_at LIMIT $2)`,
}

// Prune deletes up to limit rows of kind older than before.
func (s *Store) Prune(ctx context.Context, kind persistence.Prunable, before time.Time, limit int) (int, error) {
	q, ok := pruneSQL[kind]
	if !ok {
		return 0, fmt.Errorf("prune: unknown kind %q", kind)
	}
	res, err := s.w.ExecContext(ctx, q, msCeil(before), limit)
	if err != nil {
		return 0, fmt.Errorf("prune %s: %w", kind, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune %s: %w", kind, err)
	}
	return int(n), nil
}
