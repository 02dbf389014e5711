package chat

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
)

// Scope names the chats in the cluster's shared queues (engine/cluster.Owners):
// its keys are chat ids.
const Scope = "chat"

// Owners says which chats this node sends for, on a node of a cluster
// (engine/cluster.Owners); a nil Config.Owners sends for every chat, as one
// node does. Only the owner of a chat holds its queue and makes its calls;
// every node still stores the messages it queues, and tells the owner
// (Queued), which reads the chat's queue back.
type Owners interface {
	// Owns reports whether this node sends chat key's messages now (an
	// atomic load).
	Owns(scope string, key int64) bool
	// Queued tells the owners of these chats (on another node) that
	// messages were stored for them here. It must not block.
	Queued(scope string, keys []int64)
}

// Messages of the chat actor about ownership.
type (
	// own: this node now sends the chat's messages; it reads its queue
	// back from the store.
	own struct{}
	// disown: another node will; done is closed once no call is in flight
	// and its outcome is in the store.
	disown struct{ done chan struct{} }
	// woken: another node stored messages for the chat.
	woken struct{}
	// sweep: read the store back if nothing is held (a wake may be lost
	// with the database connection that carried it).
	sweep struct{}
)

// owns reports whether this outbox sends chat id's messages.
func (o *Outbox) owns(id int64) bool {
	return o.owners == nil || o.owners.Owns(Scope, id)
}

// Scope names the outbox's keys in the cluster's shared queues.
func (o *Outbox) Scope() string { return Scope }

// Take makes this outbox the sender of the chats owned selects (Owners.Owns
// says so already): the topics other nodes created are read, then every
// such chat with messages waiting, or with an actor here, reads its queue
// back from the store.
func (o *Outbox) Take(owned func(chat int64) bool) {
	ctx, cancel := storeCtx()
	defer cancel()
	if ts, err := o.store.ListChatTopics(ctx); err == nil {
		o.mu.Lock()
		for _, t := range ts {
			o.topics[topicKey{t.ChatID, t.Topic}] = t.ThreadID
		}
		o.mu.Unlock()
	} else {
		o.log.Warn("chat outbox: read topics on a take", "err", err)
	}
	o.adopt(ctx, owned, func() any { return &own{} })
}

// adopt tells msg to the actor of every chat sel selects that has an actor
// here or messages waiting in the store (spawning it).
func (o *Outbox) adopt(ctx context.Context, sel func(int64) bool, msg func() any) {
	if o.closing.Load() {
		return
	}
	chats := map[int64]bool{}
	o.mu.Lock()
	for id := range o.pids {
		if sel(id) {
			chats[id] = true
		}
	}
	o.mu.Unlock()
	waiting, err := o.store.ChatsWaiting(ctx)
	if err != nil {
		o.log.Warn("chat outbox: read the waiting chats", "err", err)
	}
	for _, id := range waiting {
		if sel(id) {
			chats[id] = true
		}
	}
	for id := range chats {
		o.system.Root.Send(o.pid(id), msg())
	}
}

// Yield stops sending the chats yielded selects (Owners.Owns says no
// already): what they hold stays stored, and Yield returns once the call in
// flight of each is back and its outcome stored, or with ctx's error. Only
// then may another node take them: never two senders of one chat at once.
func (o *Outbox) Yield(ctx context.Context, yielded func(chat int64) bool) error {
	var waits []chan struct{}
	o.mu.Lock()
	if !o.closing.Load() {
		for id, pid := range o.pids {
			if yielded(id) {
				done := make(chan struct{})
				waits = append(waits, done)
				o.system.Root.Send(pid, &disown{done: done})
			}
		}
	}
	o.mu.Unlock()
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return ctx.Err()
		case <-o.ctx.Done():
			return nil // stopping: calls are abandoned, their messages stay stored
		}
	}
	return nil
}

// Wake tells the owned ones of these chats that another node stored
// messages for them; the others read the store when taken.
func (o *Outbox) Wake(chats []int64) {
	if o.closing.Load() {
		return
	}
	for _, id := range chats {
		if o.owns(id) {
			o.system.Root.Send(o.pid(id), &woken{})
		}
	}
}

// Sweep has every owned chat that holds nothing look in the store once,
// those without an actor here included.
func (o *Outbox) Sweep() {
	ctx, cancel := storeCtx()
	defer cancel()
	o.adopt(ctx, o.owns, func() any { return &sweep{} })
}

// onOwnership handles the ownership messages; it reports false for any
// other message.
func (a *chatActor) onOwnership(c actor.Context, msg any) bool {
	switch m := msg.(type) {
	case *own:
		a.owned = true
		a.reread(true)
	case *woken:
		if !a.owned {
			return true // read back when taken
		}
		if a.busy || len(a.queue) > 0 {
			a.stale = true // read back before the next send: at most one read per send
			break
		}
		a.reread(true)
	case *sweep:
		if a.owned && !a.busy && len(a.queue) == 0 {
			a.reread(true)
		}
	case *disown:
		a.owned, a.stale, a.ids = false, false, nil
		if a.timer != nil {
			a.timer.Stop()
			a.timer = nil
		}
		a.keepUnowned()
		a.yields = append(a.yields, m.done)
		a.yielded()
	default:
		return false
	}
	a.pump(c)
	return true
}

// keepUnowned drops from memory what the chat's owner sends (it stays
// stored): only the call in flight and the secret messages stay, which
// exist nowhere else.
func (a *chatActor) keepUnowned() {
	kept := a.queue[:0:0]
	for i, m := range a.queue {
		if m.Secret || i == 0 && a.busy {
			kept = append(kept, m)
		}
	}
	a.o.queued.Add(int64(len(kept) - len(a.queue)))
	a.queue = kept
	if len(kept) == 0 {
		a.queue = nil
	}
	a.attempts = 0
}

// yielded answers the pending disowns once no call is in flight: after the
// deleter has written every finish made so far.
func (a *chatActor) yielded() {
	if a.owned || a.busy || len(a.yields) == 0 {
		return
	}
	for _, done := range a.yields {
		a.o.dels.barrier(done)
	}
	a.yields = nil
}

// reread reads the chat's queue back from the store, after the finishes
// made so far are written (a message sent here is not read back as
// waiting). The new queue is the call in flight, then the stored messages
// in their order, then the secret ones held (never stored); ids keeps an
// enqueue that comes after from adding a stored message twice. count says
// whether the depth gauge follows (an instance made by a restart: the
// failed one's queue was counted already).
func (a *chatActor) reread(count bool) {
	o := a.o
	a.stale = false
	ctx, cancel := storeCtx()
	defer cancel()
	o.dels.sync(ctx)
	rows, err := o.store.ListChatMessagesOf(ctx, a.id)
	if err != nil {
		o.log.Warn("chat actor: read the queue back", "chat", a.id, "err", err)
		a.stale = true // the next send tries again
		return
	}
	var q []*Message
	var head *Message
	if a.busy && len(a.queue) > 0 {
		head = a.queue[0]
		q = append(q, head)
	}
	a.ids = make(map[string]bool, len(rows))
	for _, r := range rows {
		if head != nil && r.MsgID == head.ID {
			a.ids[r.MsgID] = true
			continue
		}
		m, err := DecodeMessage(r.Body)
		if err != nil {
			continue
		}
		q = append(q, m)
		a.ids[m.ID] = true
	}
	for i, m := range a.queue {
		if m.Secret && (head == nil || i > 0) {
			q = append(q, m)
		}
	}
	if o.chats.Blocked(a.id) && len(q) > 0 { // other nodes may not know yet
		rest := q
		if head != nil {
			rest = q[1:]
		}
		q = q[:len(q)-len(rest)]
		if count {
			o.queued.Add(int64(len(rest)))
		}
		a.drop(rest) // takes them off the gauge
	}
	if count {
		o.queued.Add(int64(len(q) - len(a.queue)))
	}
	a.queue = q
}
