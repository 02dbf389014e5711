package session

import (
	"sync"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
)

// b2bGroups are the shared subscriptions of B2B accounts: every socket of an
// account (realtime and tweet-only) hears the account's active targets
// through one delivery.Group, which follows the account's target changes
// once for all of them. An idle socket then costs its group one pointer, not
// a copy of the account's handles and a hub entry per handle.
//
// mu guards m and serialises joins and leaves, so a group is created,
// joined and closed by one socket at a time; it is taken before the group's
// and the hub's locks and the target registry's (a leaf).
type b2bGroups struct {
	mu sync.Mutex
	m  map[string]*b2bGroup // by account id
}

// b2bGroup is one account's group; it hears the account's list changes on
// the account's topic and moves the group's subscriptions along.
type b2bGroup struct {
	g       *delivery.Group
	account string
}

// Deliver implements delivery.Subscriber for the account's topic: a target
// added is watched, a removed one unwatched (both idempotent: the group may
// already have read the change in the target list when it was created).
func (b *b2bGroup) Deliver(e *delivery.Event) {
	switch e.Kind {
	case delivery.KindTargetAdded:
		b.g.Watch(e.Item)
	case delivery.KindTargetRemoved:
		b.g.Unwatch(e.Item)
	}
}

// joinB2B makes s a member of account's group and returns the group and the
// handles the account monitors now (READY counts them, replay reads them).
// The first socket of an account creates the group: it subscribes to the
// account's topic before it reads the target list, so a target added or
// removed meanwhile is neither missed nor left subscribed. s hears every
// handle event published after joinB2B returns.
func (d *Deps) joinB2B(account string, s delivery.Subscriber) (*b2bGroup, []string) {
	gs := &d.groups
	gs.mu.Lock()
	defer gs.mu.Unlock()
	b := gs.m[account]
	var handles []string
	if b == nil {
		b = &b2bGroup{g: delivery.NewGroup(d.Hub), account: account}
		d.Hub.Subscribe(delivery.AccountTopic(protocol.ProductB2B, account), b)
		handles = d.Targets.ActiveHandles(account)
		b.g.WatchAll(handles)
		if gs.m == nil {
			gs.m = map[string]*b2bGroup{}
		}
		gs.m[account] = b
	} else {
		handles = d.Targets.ActiveHandles(account)
	}
	b.g.Join(s)
	return b, handles
}

// leaveB2B takes s out of its account's group; the last one out closes the
// group (it leaves every topic).
func (d *Deps) leaveB2B(b *b2bGroup, s delivery.Subscriber) {
	gs := &d.groups
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if b.g.Leave(s) > 0 {
		return
	}
	d.Hub.Unsubscribe(delivery.AccountTopic(protocol.ProductB2B, b.account), b)
	b.g.Close()
	if gs.m[b.account] == b {
		delete(gs.m, b.account)
	}
}
