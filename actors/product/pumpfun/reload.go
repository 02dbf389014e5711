package pumpfun

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// OnChange makes f hear the account of every add and remove, after the
// store has it (a cluster announces it; the other nodes Reload). f must not
// block. Set it before use.
func (r *Registry) OnChange(f func(account string)) { r.onChange = f }

func (r *Registry) changed(account string) {
	if r.onChange != nil {
		r.onChange(account)
	}
}

// Reload reads the wallet lists of accounts (nil: every account) from the
// store again, because another node changed them, and makes memory match;
// onChange does not hear it. It holds the writers' lock, so no add or
// remove of this registry lands between the read and the update of memory;
// the read is of the accounts named only.
func (r *Registry) Reload(ctx context.Context, accounts []string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	var list []persistence.PFTarget
	var err error
	if accounts == nil {
		list, err = r.store.ListPFTargets(ctx)
	} else {
		list, err = r.store.ListPFTargetsOf(ctx, accounts)
	}
	if err != nil {
		return fmt.Errorf("reload pf targets: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if accounts == nil {
		accounts = slices.Collect(maps.Keys(r.byAccount))
	}
	for _, acct := range accounts {
		r.forgetLocked(acct)
	}
	for _, t := range list {
		r.putLocked(t)
	}
	return nil
}

// forgetLocked drops what memory holds of account's list.
func (r *Registry) forgetLocked(account string) {
	for _, t := range r.byAccount[account] {
		r.unwatchLocked(t.Wallet, account)
	}
	delete(r.byAccount, account)
}
