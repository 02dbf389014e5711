package tweetalerts

import (
	"context"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// Prefs returns account's chat prefs for handle (zero values if never set).
func (r *Registry) Prefs(account, handle string) persistence.HandlePrefs {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.prefs[prefKey{account, handle}]
	if !ok {
		return persistence.HandlePrefs{AccountID: account, Handle: handle}
	}
	p.Keywords = slices.Clone(p.Keywords)
	return p
}

// UpdatePrefs applies change to the prefs of (account, handle) and stores
// the result, which it returns.
func (r *Registry) UpdatePrefs(ctx context.Context, account, handle string, change func(*persistence.HandlePrefs)) (persistence.HandlePrefs, error) {
	if account == "" || handle == "" {
		return persistence.HandlePrefs{}, ErrBadPrefsTarget
	}
	r.wmu.Lock()
	defer r.wmu.Unlock()
	p := r.Prefs(account, handle)
	change(&p)
	if len(p.Keywords) == 0 {
		p.Keywords = nil
	}
	if err := r.store.PutHandlePrefs(ctx, p); err != nil {
		return persistence.HandlePrefs{}, err
	}
	r.mu.Lock()
	r.prefs[prefKey{account, handle}] = p
	r.mu.Unlock()
	r.changed(account)
	p.Keywords = slices.Clone(p.Keywords)
	return p, nil
}

// Settings returns account's notification settings (the defaults if never set).
func (r *Registry) Settings(account string) persistence.TweetAlertsSettings {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if s, ok := r.settings[account]; ok {
		return s
	}
	return persistence.DefaultTweetAlertsSettings(account)
}

// UpdateSettings applies change to account's settings, stores and returns them.
func (r *Registry) UpdateSettings(ctx context.Context, account string, change func(*persistence.TweetAlertsSettings)) (persistence.TweetAlertsSettings, error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	s := r.Settings(account)
	change(&s)
	s.AccountID = account
	if err := r.store.PutTweetAlertsSettings(ctx, s); err != nil {
		return persistence.TweetAlertsSettings{}, err
	}
	r.mu.Lock()
	r.settings[account] = s
	r.mu.Unlock()
	r.changed(account)
	return s, nil
}
