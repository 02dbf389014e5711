package chat

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// Messages of the chat actor.
type (
	// enqueue hands stored messages to their chat.
	enqueue struct{ ms []*Message }
	// result is a worker's report on one call.
	result struct {
		m   *Message
		err error
	}
	// wake says the chat's pacing or a retry_after has passed.
	wake struct{}
)

// errTopicGone says the message's forum topic was deleted: it is created
// again and the message sent there.
var errTopicGone = errors.New("forum topic deleted")

// chatActor owns one chat: the order of its messages, its pace (one call in
// flight, then the chat's interval), its retries. An instance made by a
// restart after a panic reloads the chat's queue from the store. On a node
// of a cluster it sends only while this node owns the chat (owned.go).
type chatActor struct {
	o        *Outbox
	id       int64
	queue    []*Message
	busy     bool
	attempts int // of the head message
	nextAt   time.Time
	timer    *time.Timer
	// reload is set on an instance made by a restart: it reloads the queue
	// from the store; ids then keeps enqueue from adding a message twice
	// (a read back on a cluster sets it too).
	reload bool
	ids    map[string]bool
	// owned: this node sends the chat's messages (always on one node); not
	// owned, the actor holds only its call in flight and secret messages.
	// stale: another node stored messages for the chat, read back before
	// the next send. yields wait for the call in flight (disown).
	owned  bool
	stale  bool
	yields []chan struct{}
}

func newChatActor(o *Outbox, id int64, reload bool) *chatActor {
	return &chatActor{o: o, id: id, reload: reload, owned: o.owns(id)}
}

func (a *chatActor) Receive(c actor.Context) {
	if a.onOwnership(c, c.Message()) {
		return
	}
	switch m := c.Message().(type) {
	case *enqueue:
		if a.o.chats.Blocked(a.id) {
			a.drop(m.ms)
			return
		}
		for _, x := range m.ms {
			if a.ids != nil && a.ids[x.ID] || !a.owned && !x.Secret {
				a.o.queued.Add(-1) // read back already, or the owner reads it back
				continue
			}
			a.queue = append(a.queue, x)
		}
		a.pump(c)
	case *result:
		a.busy = false
		a.finish(m)
		if !a.owned {
			a.keepUnowned()
			a.yielded()
		}
		a.pump(c)
	case *wake:
		a.timer = nil
		a.pump(c)
	case *actor.Stopping:
		if a.timer != nil {
			a.timer.Stop()
		}
	case *actor.Started:
		if a.reload && a.owned {
			a.reread(false)
			a.o.log.Info("chat actor restarted; queue reloaded from the store", "chat", a.id, "messages", len(a.queue))
			a.pump(c)
		}
	case *actor.Stopped, *actor.Restarting:
	default:
		a.o.log.Warn("chat actor: unexpected message", "chat", a.id)
	}
}

// interval is the least time between two messages to this chat.
func (a *chatActor) interval() time.Duration {
	if a.id < 0 { // groups and channels have negative ids
		return a.o.lim.GroupEvery
	}
	return a.o.lim.PrivateEvery
}

// pump starts the head message's call when the chat may send again.
func (a *chatActor) pump(c actor.Context) {
	if a.busy || len(a.queue) == 0 || a.o.closing.Load() || !a.owned && !a.queue[0].Secret {
		return
	}
	if now := a.o.now(); now.Before(a.nextAt) {
		if a.timer == nil {
			self, o := c.Self(), a.o
			a.timer = time.AfterFunc(a.nextAt.Sub(now), func() {
				if !o.closing.Load() {
					o.system.Root.Send(self, &wake{})
				}
			})
		}
		return
	}
	if a.stale {
		a.reread(true)
		if len(a.queue) == 0 {
			return
		}
	}
	a.coalesce()
	a.busy = true
	a.o.pool.Submit(job{m: a.queue[0], pid: c.Self()})
}

// finish applies one call's outcome to the head message.
func (a *chatActor) finish(r *result) {
	o := a.o
	if len(a.queue) == 0 || a.queue[0] != r.m || errors.Is(r.err, errAborted) {
		return
	}
	var apiErr *APIError
	errors.As(r.err, &apiErr)
	switch {
	case r.err == nil:
		o.sent.Add(1)
		if r.m.DetectedAt > 0 {
			o.latency.Observe(o.now().Sub(time.UnixMilli(r.m.DetectedAt)))
		}
		a.done(true)
		if r.m.Callback == "" {
			a.nextAt = o.now().Add(a.interval())
		}
	case apiErr != nil && apiErr.Code == 429:
		o.limited.Add(1)
		wait := apiErr.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		a.nextAt = o.now().Add(wait) // the same message, once the wait is over
	case apiErr != nil && apiErr.Code == 403:
		o.blocked.Add(1)
		ctx, cancel := storeCtx()
		if err := o.chats.SetBlocked(ctx, a.id, true); err != nil {
			o.log.Warn("chat: mark blocked", "chat", a.id, "err", err)
		}
		cancel()
		o.log.Info("chat blocked the bot; sending stopped", "chat", a.id)
		rest := a.queue
		a.queue, a.attempts = nil, 0
		a.drop(rest)
	case apiErr != nil && apiErr.Code == 400 && apiErr.MigrateTo != 0:
		a.migrate(apiErr.MigrateTo)
	case apiErr != nil && apiErr.Code >= 400 && apiErr.Code < 500 && !errors.Is(r.err, errTopicGone):
		o.failed.Add(1)
		o.log.Info("chat message refused", "chat", a.id, "code", apiErr.Code, "description", apiErr.Description)
		a.done(false)
	default: // network error, 5xx, a deleted topic: try again
		a.attempts++
		if a.attempts >= o.lim.Attempts {
			o.failed.Add(1)
			o.log.Info("chat message dropped after retries", "chat", a.id, "err", r.err)
			a.done(false)
			return
		}
		o.retried.Add(1)
		if !errors.Is(r.err, errTopicGone) {
			a.nextAt = o.now().Add(o.lim.Backoff << (a.attempts - 1))
		}
	}
}

// done removes the head message from the queue and finishes it in the store.
func (a *chatActor) done(_ bool) {
	m := a.queue[0]
	a.queue[0] = nil
	a.queue = a.queue[1:]
	if len(a.queue) == 0 {
		a.queue = nil
	}
	a.attempts = 0
	a.o.queued.Add(-1)
	a.o.dels.add(m.ID)
}

// drop finishes messages that will never be sent (the chat is blocked, or
// its queue moved to the supergroup it became).
func (a *chatActor) drop(ms []*Message) {
	if len(ms) == 0 {
		return
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	a.o.queued.Add(-int64(len(ms)))
	ctx, cancel := storeCtx()
	defer cancel()
	if err := a.o.store.FinishChatMessages(ctx, ids, a.o.now()); err != nil {
		a.o.log.Warn("chat outbox: finish", "chat", a.id, "err", err)
	}
}

// digestLines is how many alerts one digest message lists.
const digestLines = 40

// coalesce replaces the queued alerts by digest messages when the chat has
// DigestAt or more waiting: a chat that fell far behind gets a few lists of
// links instead of hundreds of messages at one per interval.
func (a *chatActor) coalesce() {
	n := 0
	for _, m := range a.queue {
		if m.Alert {
			n++
		}
	}
	if n < a.o.lim.DigestAt {
		return
	}
	var alerts, kept []*Message
	at := -1
	for _, m := range a.queue {
		if m.Alert {
			if at < 0 {
				at = len(kept)
			}
			alerts = append(alerts, m)
		} else {
			kept = append(kept, m)
		}
	}
	var digests []*Message
	for i := 0; i < len(alerts); i += digestLines {
		part := alerts[i:min(i+digestLines, len(alerts))]
		var b strings.Builder
		b.WriteString(Bold(strconv.Itoa(len(part)) + " alerts while this chat was behind"))
		for _, m := range part {
			b.WriteString("\n• ")
			b.WriteString(Link(m.URL, m.URL))
		}
		digests = append(digests, &Message{ID: "digest-" + part[0].ID, Chat: a.id, Text: b.String(), DetectedAt: part[0].DetectedAt})
	}
	rows := make([]persistence.ChatMessage, len(digests))
	for i, d := range digests {
		rows[i] = persistence.ChatMessage{MsgID: d.ID, ChatID: a.id, Body: d.Encode(), CreatedAt: a.o.now().UTC()}
	}
	ids := make([]string, len(alerts))
	for i, m := range alerts {
		ids[i] = m.ID
	}
	ctx, cancel := storeCtx()
	defer cancel()
	// Digests first, then the alerts they replace: a crash in between
	// repeats, never loses.
	if _, err := a.o.store.QueueChatMessages(ctx, rows, 0); err != nil {
		a.o.log.Warn("chat outbox: digest", "chat", a.id, "err", err)
		return
	}
	if err := a.o.store.FinishChatMessages(ctx, ids, a.o.now()); err != nil {
		a.o.log.Warn("chat outbox: digest", "chat", a.id, "err", err)
	}
	a.o.digests.Add(int64(len(digests)))
	a.o.queued.Add(int64(len(digests) - len(alerts)))
	q := make([]*Message, 0, len(kept)+len(digests))
	q = append(q, kept[:at]...)
	q = append(q, digests...)
	a.queue = append(q, kept[at:]...)
	a.attempts = 0
}

// migrate moves the chat's queue to the supergroup the group became (a 400
// with migrate_to_chat_id): the link follows, the messages are stored
// again under the new chat before the old ones are deleted.
func (a *chatActor) migrate(to int64) {
	o := a.o
	ctx, cancel := storeCtx()
	defer cancel()
	if ok, err := o.chats.Migrate(ctx, a.id, to); !ok || err != nil {
		o.log.Warn("chat: migrate to supergroup", "chat", a.id, "to", to, "err", err)
		o.failed.Add(1)
		a.done(false)
		return
	}
	moved := make([]*Message, len(a.queue))
	rows := make([]persistence.ChatMessage, len(a.queue))
	for i, m := range a.queue {
		c := *m
		c.ID, c.Chat, c.Thread = m.ID+"@"+strconv.FormatInt(to, 10), to, 0
		moved[i] = &c
		rows[i] = persistence.ChatMessage{MsgID: c.ID, ChatID: to, Body: c.Encode(), CreatedAt: o.now().UTC()}
	}
	if _, err := o.store.QueueChatMessages(ctx, rows, 0); err != nil {
		o.log.Warn("chat: migrate the queue", "chat", a.id, "err", err)
		return // stays here, tried again after the chat's pace
	}
	o.log.Info("chat became a supergroup; its link and queue moved", "chat", a.id, "to", to)
	rest := a.queue
	a.queue, a.attempts = nil, 0
	a.drop(rest)
	o.route(moved)
}
