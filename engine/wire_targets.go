package engine

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/ingestlog"
)

// targetJournalDir is the target registry's journal under --data-dir
// (embedded store only; see targets/journal.go).
const targetJournalDir = "targets-log"

// newTargets returns the B2B target registry over st. On the embedded store
// it runs in journal mode: an add is answered once appended to a journal,
// and the store is written behind it in large transactions. The journal is
// written, not fsynced, as the embedded store's own commits are
// (synchronous=NORMAL): an answered add survives a crash of the process, as
// before. On PostgreSQL (where a cluster may share the store and its ids)
// every round is a store transaction. The caller closes the journal (nil on
// PostgreSQL) after the registry.
func newTargets(cfg *Config, st persistence.Store, log *slog.Logger) (*targets.Registry, *ingestlog.Log, error) {
	opts := []targets.Option{targets.WithLogger(log)}
	var j *ingestlog.Log
	if cfg.DatabaseURL == "" {
		var err error
		j, err = ingestlog.Open(filepath.Join(cfg.DataDir, targetJournalDir), ingestlog.Options{SegmentBytes: 4 << 20, NoSync: true})
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open the target journal: %w", err)
		}
		opts = append(opts, targets.WithJournal(j))
	}
	return targets.NewRegistry(st, nil, time.Now, opts...), j, nil
}
