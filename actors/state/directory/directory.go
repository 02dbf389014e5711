// Package directory is the in-memory user directory: handle resolution and
// profile lookups without a store round trip. Handle actors write it (each
// only for the users it observes); REST and other actors read it.
package directory

import (
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Entry is one user as last observed, under its handle's key (User.Handle;
// User.Display() is the platform's spelling). Entries are immutable once
// published.
type Entry struct {
	User *protocol.UserObs
	// Cats are the user's categories, interned for login filters.
	Cats      protocol.CategorySet
	UpdatedAt time.Time
}

// Directory maps handles and ids to the latest user snapshot.
type Directory struct {
	mu       sync.RWMutex
	byHandle map[string]*Entry
	byID     map[string]*Entry
}

// New returns an empty directory.
func New() *Directory {
	return &Directory{byHandle: map[string]*Entry{}, byID: map[string]*Entry{}}
}

// Load fills the directory from stored users.
func (d *Directory) Load(users []persistence.User) error {
	for _, u := range users {
		var obs protocol.UserObs
		if err := json.Unmarshal(u.Snapshot, &obs); err != nil {
			return err
		}
		// The stored snapshot is the line as sent: its handle is the
		// platform's spelling; the row's is the key.
		obs.Spelling = protocol.HandleSpelling(obs.Handle)
		obs.Handle, obs.Suspended = u.Handle, u.Suspended
		d.Put(&obs, u.UpdatedAt)
	}
	return nil
}

// Put publishes u (which must not be changed afterwards) and returns the
// entry this id had before, if any, so callers can diff and detect renames.
func (d *Directory) Put(u *protocol.UserObs, at time.Time) (prev *Entry) {
	e := &Entry{User: u, Cats: protocol.DefaultCategories.Set(u.Categories), UpdatedAt: at}
	d.mu.Lock()
	defer d.mu.Unlock()
	prev = d.byID[u.ID]
	if prev != nil && prev.User.Handle != u.Handle {
		if cur := d.byHandle[prev.User.Handle]; cur == prev {
			delete(d.byHandle, prev.User.Handle)
		}
	}
	if other := d.byHandle[u.Handle]; other != nil && other.User.ID != u.ID {
		// The handle moved to another account: the old holder lost it.
		delete(d.byID, other.User.ID)
	}
	d.byID[u.ID] = e
	d.byHandle[u.Handle] = e
	return prev
}

// ByHandle returns the user holding handle (lowercase).
func (d *Directory) ByHandle(handle string) (*Entry, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	e, ok := d.byHandle[handle]
	return e, ok
}

// Categories returns the interned categories of handle (empty if unknown).
func (d *Directory) Categories(handle string) protocol.CategorySet {
	if e, ok := d.ByHandle(handle); ok {
		return e.Cats
	}
	return protocol.CategorySet{}
}

// ByID returns the user with platform id id.
func (d *Directory) ByID(id string) (*Entry, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	e, ok := d.byID[id]
	return e, ok
}

// Len is the number of users known.
func (d *Directory) Len() int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return len(d.byID)
}
