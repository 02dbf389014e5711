package eca

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// OnChange makes f hear the account of every entry created, removed or
// matched here (a cluster announces it; the other nodes Reload). f must
// not block. Set it before use.
func (w *Watchlist) OnChange(f func(account string)) { w.onChange = f }

func (w *Watchlist) changed(account string) {
	if w.onChange != nil {
		w.onChange(account)
	}
}

// Reload reads the active entries of accounts (nil: every account) from
// the store again, because another node changed them, and makes memory
// match; onChange does not hear it. It holds the writers' lock, so no
// create or remove of this watchlist lands between the read and the update
// of memory; the read is of the accounts named only. Should the store hold
// more than one active entry of an account, the newest is kept (Load ends
// the others at a start).
func (w *Watchlist) Reload(ctx context.Context, accounts []string) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	var list []persistence.ECAEntry
	var err error
	if accounts == nil {
		list, err = w.store.ListActiveECAEntries(ctx, w.now())
	} else {
		list, err = w.store.ListActiveECAEntriesOf(ctx, accounts, w.now())
	}
	if err != nil {
		return fmt.Errorf("reload eca watchlist: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if accounts == nil {
		accounts = slices.Collect(maps.Keys(w.active))
	}
	for _, acct := range accounts {
		if e := w.active[acct]; e != nil {
			w.dropLocked(e)
		}
	}
	for i := range list { // oldest first: the newest of an account stays
		e := list[i]
		if old := w.active[e.AccountID]; old != nil {
			w.dropLocked(old)
		}
		w.putLocked(&e)
	}
	return nil
}
