package searchalerts

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// OnChange makes f hear the account of every query created or removed,
// after the store has it (a cluster announces it; the other nodes Reload).
// f must not block. Set it before use.
func (r *Registry) OnChange(f func(account string)) { r.onChange = f }

func (r *Registry) changed(account string) {
	if r.onChange != nil {
		r.onChange(account)
	}
}

// Reload reads the queries of accounts (nil: every account) from the store
// again, because another node changed them, and makes memory match;
// onChange does not hear it. It holds the writers' lock, so no create or
// remove of this registry lands between the read and the update of memory;
// the read is of the accounts named only. A query that went is no longer
// matched, and what the actor collected for it is not flushed (flush finds
// it gone).
func (r *Registry) Reload(ctx context.Context, accounts []string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	var list []persistence.SAQuery
	var err error
	if accounts == nil {
		list, err = r.store.ListSAQueries(ctx)
	} else {
		list, err = r.store.ListSAQueriesOf(ctx, accounts)
	}
	if err != nil {
		return fmt.Errorf("reload sa queries: %w", err)
	}
	compiled := make([]*query, 0, len(list))
	for _, q := range list {
		c, err := r.compile(q)
		if err != nil {
			return fmt.Errorf("reload sa query %d: %w", q.ID, err)
		}
		compiled = append(compiled, c)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if accounts == nil {
		accounts = slices.Collect(maps.Keys(r.account))
	}
	for _, acct := range accounts {
		for _, q := range r.account[acct] {
			r.dropLocked(q)
		}
	}
	for _, q := range compiled {
		r.putLocked(q)
	}
	return nil
}
