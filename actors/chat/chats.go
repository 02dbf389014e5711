package chat

import (
	"context"
	"slices"
	"sync"

	"github.com/alertd/alertd/persistence"
)

// ChatsStore is what Chats keeps in persistence.
type ChatsStore interface {
	PutChat(ctx context.Context, c persistence.Chat) error
	ListChats(ctx context.Context) ([]persistence.Chat, error)
	ListChatsOf(ctx context.Context, accounts []string) ([]persistence.Chat, error)
}

// Chats is the registry of linked chats: shared memory, write-through.
// Writers are serialised by wmu and store first; mu guards the maps and is
// held for memory updates only, never across store I/O.
type Chats struct {
	store    ChatsStore
	wmu      sync.Mutex
	onLinked func(account string)
	onChange func(account string) // chats_reload.go

	mu        sync.RWMutex
	byID      map[int64]persistence.Chat
	byAccount map[string][]int64 // by chat id
}

// NewChats returns an empty registry; call Load before use.
func NewChats(store ChatsStore) *Chats {
	return &Chats{store: store, byID: map[int64]persistence.Chat{}, byAccount: map[string][]int64{}}
}

// Load reads every chat.
func (r *Chats) Load(ctx context.Context) error {
	cs, err := r.store.ListChats(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		r.putLocked(c)
	}
	return nil
}

func (r *Chats) putLocked(c persistence.Chat) {
	if old, ok := r.byID[c.ChatID]; ok {
		r.byAccount[old.AccountID] = slices.DeleteFunc(r.byAccount[old.AccountID], func(id int64) bool { return id == c.ChatID })
		if len(r.byAccount[old.AccountID]) == 0 {
			delete(r.byAccount, old.AccountID)
		}
	}
	r.byID[c.ChatID] = c
	ids := append(r.byAccount[c.AccountID], c.ChatID)
	slices.Sort(ids)
	r.byAccount[c.AccountID] = ids
}

// Get returns chat id.
func (r *Chats) Get(id int64) (persistence.Chat, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.byID[id]
	return c, ok
}

// Blocked reports whether sending to chat id stopped after a 403.
func (r *Chats) Blocked(id int64) bool {
	c, ok := r.Get(id)
	return ok && c.Blocked
}

// OfAccount returns the account's chats that are not blocked, by id.
func (r *Chats) OfAccount(account string) []persistence.Chat {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := r.byAccount[account]
	out := make([]persistence.Chat, 0, len(ids))
	for _, id := range ids {
		if c := r.byID[id]; !c.Blocked {
			out = append(out, c)
		}
	}
	return out
}

// Count is the number of chats known.
func (r *Chats) Count() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byID)
}

// Accounts returns the accounts that have a chat, sorted.
func (r *Chats) Accounts() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.byAccount))
	for a := range r.byAccount {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// SetOnLinked sets who hears that an account got a chat (before use).
func (r *Chats) SetOnLinked(f func(account string)) { r.onLinked = f }

// Put links (or re-links) a chat; a chat linked again is unblocked.
func (r *Chats) Put(ctx context.Context, c persistence.Chat) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if err := r.store.PutChat(ctx, c); err != nil {
		return err
	}
	r.mu.Lock()
	r.putLocked(c)
	r.mu.Unlock()
	if r.onLinked != nil {
		r.onLinked(c.AccountID)
	}
	r.changed(c.AccountID)
	return nil
}

// SetBlocked marks chat id blocked (or not); an unknown id is ignored.
func (r *Chats) SetBlocked(ctx context.Context, id int64, blocked bool) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	c, ok := r.Get(id)
	if !ok || c.Blocked == blocked {
		return nil
	}
	c.Blocked = blocked
	if err := r.store.PutChat(ctx, c); err != nil {
		return err
	}
	r.mu.Lock()
	r.byID[id] = c
	r.mu.Unlock()
	r.changed(c.AccountID)
	return nil
}

// Migrate moves chat from's link to chat to (a group that became a
// supergroup has a new id): to is linked to the same account, from is
// marked blocked. It returns false when from is unknown.
func (r *Chats) Migrate(ctx context.Context, from, to int64) (bool, error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	old, ok := r.Get(from)
	if !ok {
		return false, nil
	}
	moved := old
	moved.ChatID, moved.Kind, moved.Blocked = to, "supergroup", false
	if err := r.store.PutChat(ctx, moved); err != nil {
		return false, err
	}
	old.Blocked = true
	if err := r.store.PutChat(ctx, old); err != nil {
		return false, err
	}
	r.mu.Lock()
	r.putLocked(moved)
	r.byID[from] = old
	r.mu.Unlock()
	r.changed(old.AccountID)
	return true, nil
}
