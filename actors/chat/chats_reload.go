package chat

import (
	"context"
	"fmt"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// SetOnChange sets who hears the account of every chat linked, blocked or
// migrated here, after the store has it (a cluster announces it; the other
// nodes Reload). f must not block. Set it before use.
func (r *Chats) SetOnChange(f func(account string)) { r.onChange = f }

func (r *Chats) changed(account string) {
	if r.onChange != nil {
		r.onChange(account)
	}
}

// Reload reads the chats of accounts (nil: every chat) from the store
// again, because another node linked, blocked or migrated them, and makes
// memory match; a chat now of one of these accounts moves to it. onChange
// does not hear it; onLinked hears the accounts that got a chat they did
// not have here. It holds the writers' lock, so no write of this registry
// lands between the read and the update of memory.
func (r *Chats) Reload(ctx context.Context, accounts []string) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	var cs []persistence.Chat
	var err error
	if accounts == nil {
		cs, err = r.store.ListChats(ctx)
	} else {
		cs, err = r.store.ListChatsOf(ctx, accounts)
	}
	if err != nil {
		return fmt.Errorf("reload chats: %w", err)
	}
	var linked []string
	r.mu.Lock() // chats are never unlinked, only moved or blocked: none to forget
	for _, c := range cs {
		old, ok := r.byID[c.ChatID]
		if !ok || old.AccountID != c.AccountID {
			linked = append(linked, c.AccountID)
		}
		r.putLocked(c)
	}
	r.mu.Unlock()
	if r.onLinked != nil {
		slices.Sort(linked)
		for _, a := range slices.Compact(linked) {
			r.onLinked(a)
		}
	}
	return nil
}
