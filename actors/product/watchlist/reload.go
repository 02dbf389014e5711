package watchlist

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/alertd/alertd/persistence"
)

// OnChange makes f hear the account of every change this registry writes
// (items, options, settings, webhook), after the store has it. f must not
// block. Set it before use.
func (r *Registry[S, O]) OnChange(f func(account string)) { r.onChange = f }

func (r *Registry[S, O]) changed(account string) {
	if r.onChange != nil {
		r.onChange(account)
	}
}

// stored is what the store holds of the product.
type stored struct {
	targets []persistence.WatchTarget
	configs []persistence.WatchConfig
}

// readStored reads the product's entries of accounts, or of every account
// when accounts is nil.
func (r *Registry[S, O]) readStored(ctx context.Context, accounts []string) (st stored, err error) {
	if accounts == nil {
		st.targets, err = r.store.ListWatchTargets(ctx, r.product)
	} else {
		st.targets, err = r.store.ListWatchTargetsOf(ctx, r.product, accounts)
	}
	if err != nil {
		return st, fmt.Errorf("load %s targets: %w", r.product, err)
	}
	if accounts == nil {
		st.configs, err = r.store.ListWatchConfigs(ctx, r.product)
	} else {
		st.configs, err = r.store.ListWatchConfigsOf(ctx, r.product, accounts)
	}
	if err != nil {
		return st, fmt.Errorf("load %s settings: %w", r.product, err)
	}
	return st, nil
}

// Reload reads the items, settings and webhooks of accounts (nil: every
// account) from the store again, because another node changed them, and
// makes memory match; onChange does not hear it. It holds the writers'
// lock, so no write of this registry lands between its read and the
// update of memory; the read is of the accounts named only.
//
// The detectors read the registry on every observation (Watched,
// Watchers, Webhook), so they follow at once; what a detector derived
// when an item was added here (cw's sync of a new handle's communities)
// is not redone for an item added on another node.
func (r *Registry[S, O]) Reload(ctx context.Context, accounts []string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	st, err := r.readStored(ctx, accounts)
	if err != nil {
		return err
	}
	var want map[string]bool
	if accounts != nil {
		want = map[string]bool{}
		for _, a := range accounts {
			want[a] = true
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Forget what memory holds of the accounts named, then apply the store's.
	for id, a := range r.accts {
		if want != nil && !want[id] {
			continue
		}
		for _, it := range a.items {
			r.unindexLocked(id, it.Name)
		}
		delete(r.accts, id)
	}
	return r.applyLocked(st, want)
}

// applyLocked adds the stored entries of the accounts in want (nil: all)
// to memory.
func (r *Registry[S, O]) applyLocked(st stored, want map[string]bool) error {
	for _, t := range st.targets {
		if want != nil && !want[t.AccountID] {
			continue
		}
		it := &Item[O]{Name: t.Item, AddedAt: t.CreatedAt}
		if len(t.Options) > 0 {
			if err := json.Unmarshal(t.Options, &it.Opts); err != nil {
				return fmt.Errorf("load %s target %s/%s: options: %w", r.product, t.AccountID, t.Item, err)
			}
		}
		a := r.accountLocked(t.AccountID)
		a.items = append(a.items, it)
		r.indexLocked(t.AccountID, t.Item)
	}
	for _, c := range st.configs {
		if want != nil && !want[c.AccountID] {
			continue
		}
		a := r.accountLocked(c.AccountID)
		if len(c.Settings) > 0 {
			s := r.defaults()
			if err := json.Unmarshal(c.Settings, &s); err != nil {
				return fmt.Errorf("load %s settings of %s: %w", r.product, c.AccountID, err)
			}
			a.settings = s
		}
		a.webhook = Webhook{ID: c.ID, URL: c.WebhookURL, Secret: c.WebhookSecret, UpdatedAt: c.UpdatedAt}
	}
	return nil
}
