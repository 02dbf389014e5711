package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
	"golang.org/x/time/rate"
)

// API is the Bot API as the outbox calls it (edge/telegram implements it
// over the client library). Errors the Bot API answered are *APIError.
type API interface {
	// Send makes m's call in chat m.Chat, in forum thread (0: none).
	Send(ctx context.Context, m *Message, thread int64) error
	// CreateTopic creates a forum topic and returns its message_thread_id.
	CreateTopic(ctx context.Context, chat int64, title string) (int64, error)
}

// APIError is a call the Bot API refused.
type APIError struct {
	Code        int
	Description string
	// RetryAfter is a 429's parameters.retry_after.
	RetryAfter time.Duration
	// MigrateTo is parameters.migrate_to_chat_id: the group became a
	// supergroup with this id.
	MigrateTo int64
}

func (e *APIError) Error() string {
	return fmt.Sprintf("bot api %d: %s", e.Code, e.Description)
}

// Store is what the outbox keeps in persistence.
type Store interface {
	ChatsStore
	QueueChatMessages(ctx context.Context, ms []persistence.ChatMessage, offset int64) (stored []bool, err error)
	FinishChatMessages(ctx context.Context, ids []string, at time.Time) error
	PruneChatMessages(ctx context.Context, before time.Time) error
	ListChatMessages(ctx context.Context) ([]persistence.ChatMessage, error)
	ListChatMessagesOf(ctx context.Context, chatID int64) ([]persistence.ChatMessage, error)
	ChatsWaiting(ctx context.Context) ([]int64, error)
	PutChatTopic(ctx context.Context, t persistence.ChatTopic) error
	DeleteChatTopic(ctx context.Context, chatID int64, topic string) error
	ListChatTopics(ctx context.Context) ([]persistence.ChatTopic, error)
}

// Limits are the Bot API's limits and the outbox's retry policy.
type Limits struct {
	// PerSecond is the most messages per second in all (Bot API: about 30).
	PerSecond float64
	// PrivateEvery is the least time between two messages to one private
	// chat (1 s); GroupEvery to one group (3 s: 20 per minute).
	PrivateEvery, GroupEvery time.Duration
	// DigestAt is how many alerts a chat may have waiting before they are
	// coalesced into digest messages.
	DigestAt int
	// Workers is how many calls are in flight at once.
	Workers int
	// Attempts is how often a message is tried on network errors and 5xx
	// answers before it is dropped; Backoff the first wait (doubling).
	Attempts int
	Backoff  time.Duration
	// CallTimeout bounds one call.
	CallTimeout time.Duration
}

// DefaultLimits are the Bot API's published limits.
func DefaultLimits() Limits {
	return Limits{PerSecond: 30, PrivateEvery: time.Second, GroupEvery: 3 * time.Second, DigestAt: 50,
		Workers: 16, Attempts: 5, Backoff: time.Second, CallTimeout: 30 * time.Second}
}

// Stats are the outbox's counters: Queued is the depth now (the
// alertd_queue_depth{queue="chat"} gauge), the others count send outcomes
// since start (alertd_deliveries_total{channel="chat",outcome=...}).
type Stats struct {
	Queued      int64
	Sent        int64
	Failed      int64 // refused (4xx) or retries spent: dropped
	RateLimited int64 // 429 answers waited out
	Retried     int64 // network errors and 5xx retried
	Blocked     int64 // chats stopped by a 403
	Digests     int64 // digest messages that replaced queued alerts
	// Latency is detection to the Bot API's answer, of the alerts sent
	// (alertd_delivery_latency_seconds{channel="chat"}).
	Latency latency.Snapshot
}

// Outbox is the durable, rate-limited sender of chat messages: one actor
// per chat owns that chat's queue, its pacing and its retries; a fixed pool
// of workers makes the calls under one global rate limiter. A message is
// stored before it is queued and finished once sent or finally refused, so a
// crash loses nothing (a message may be sent twice if the process dies
// between the call and the finish).
type Outbox struct {
	api    API
	store  Store
	chats  *Chats
	lim    Limits
	log    *slog.Logger
	now    func() time.Time
	system *actor.ActorSystem
	sup    actor.SupervisorStrategy
	global *rate.Limiter
	pool   *kit.Workers[job]
	ctx    context.Context // the workers' calls; cancelled by Stop
	cancel context.CancelFunc
	dels   *deleter
	owners Owners // nil: one node, every chat sent here
	nodes  func() int
	share  atomic.Int64 // the nodes the global limit was last cut for

	mu     sync.Mutex
	pids   map[int64]*actor.PID
	topics map[topicKey]int64 // guarded by mu; written after the store

	closing                                          atomic.Bool
	started                                          atomic.Bool // Start ran: the deleter goroutine runs
	queued                                           atomic.Int64
	sent, failed, limited, retried, blocked, digests atomic.Int64
	latency                                          latency.Histogram
}

type topicKey struct {
	chat  int64
	topic string
}

// Config builds an Outbox.
type Config struct {
	API        API
	Store      Store
	Chats      *Chats
	Limits     Limits
	System     *actor.ActorSystem
	Supervisor actor.SupervisorStrategy
	Log        *slog.Logger
	Now        func() time.Time
	// Owners, on a node of a cluster, says which chats this node sends
	// (owned.go); nil sends every chat.
	Owners Owners
	// Nodes, on a node of a cluster, is how many live nodes send for the
	// bot: the Bot API's limit is the bot's, so each takes its share of
	// PerSecond. nil: one node.
	Nodes func() int
}

// NewOutbox returns a stopped outbox; Start resumes what is stored.
func NewOutbox(c Config) *Outbox {
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	d := DefaultLimits()
	if c.Limits.PerSecond <= 0 {
		c.Limits.PerSecond = d.PerSecond
	}
	if c.Limits.Workers <= 0 {
		c.Limits.Workers = d.Workers
	}
	if c.Limits.Attempts <= 0 {
		c.Limits.Attempts = d.Attempts
	}
	if c.Limits.DigestAt <= 1 {
		c.Limits.DigestAt = d.DigestAt
	}
	if c.Limits.CallTimeout <= 0 {
		c.Limits.CallTimeout = d.CallTimeout
	}
	o := &Outbox{api: c.API, store: c.Store, chats: c.Chats, lim: c.Limits, log: c.Log, now: c.Now,
		system: c.System, sup: c.Supervisor, owners: c.Owners, nodes: c.Nodes, pids: map[int64]*actor.PID{}, topics: map[topicKey]int64{},
		global: rate.NewLimiter(rate.Limit(c.Limits.PerSecond), 1)}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	o.pool = kit.NewWorkers(c.Limits.Workers, o.work)
	o.dels = newDeleter(c.Store, c.Log, c.Now)
	return o
}

// Start loads the topics, starts the workers and resumes the stored outbox;
// on a node of a cluster the owners' Take resumes the chats this node gets.
func (o *Outbox) Start(ctx context.Context) error {
	ts, err := o.store.ListChatTopics(ctx)
	if err != nil {
		return fmt.Errorf("chat topics: %w", err)
	}
	o.mu.Lock()
	for _, t := range ts {
		o.topics[topicKey{t.ChatID, t.Topic}] = t.ThreadID
	}
	o.mu.Unlock()
	if o.owners != nil {
		o.pool.Start()
		o.dels.start()
		o.started.Store(true)
		return nil
	}
	rows, err := o.store.ListChatMessages(ctx)
	if err != nil {
		return fmt.Errorf("chat outbox: %w", err)
	}
	o.pool.Start()
	o.dels.start()
	o.started.Store(true)
	ms := make([]*Message, 0, len(rows))
	for _, r := range rows {
		m, err := DecodeMessage(r.Body)
		if err != nil {
			o.log.Warn("chat outbox: undecodable message dropped", "id", r.MsgID, "err", err)
			_ = o.store.FinishChatMessages(ctx, []string{r.MsgID}, o.now())
			continue
		}
		ms = append(ms, m)
	}
	o.route(ms)
	return nil
}

// Queue stores ms and, with offset > 0, the bot's next update offset in one
// transaction, then hands ms to their chats. When it returns nil, ms will
// be sent even across a crash. A message whose id is queued already, or
// was finished within FinishedKeep, is not sent again: that is how the
// ingest log's replay of a post queues only the alerts not yet queued.
func (o *Outbox) Queue(ctx context.Context, ms []*Message, offset int64) error {
	rows := make([]persistence.ChatMessage, 0, len(ms))
	now := o.now().UTC()
	for _, m := range ms {
		if !m.Secret { // a secret goes from memory only (Message.Secret)
			rows = append(rows, persistence.ChatMessage{MsgID: m.ID, ChatID: m.Chat, Body: m.Encode(), CreatedAt: now})
		}
	}
	stored, err := o.store.QueueChatMessages(ctx, rows, offset)
	if err != nil {
		return err
	}
	fresh := ms[:0:0]
	i := 0
	for _, m := range ms {
		if m.Secret {
			fresh = append(fresh, m)
			continue
		}
		if i < len(stored) && stored[i] {
			fresh = append(fresh, m)
		}
		i++
	}
	o.route(fresh)
	return nil
}

// route tells each chat's actor its messages, in order. On a node of a
// cluster the chats owned elsewhere are named to their owners instead (the
// messages are stored); their secret messages, which are not, go from here.
func (o *Outbox) route(ms []*Message) {
	if len(ms) == 0 || o.closing.Load() {
		return
	}
	by := map[int64][]*Message{}
	var order, elsewhere []int64
	for _, m := range ms {
		if _, ok := by[m.Chat]; !ok {
			order = append(order, m.Chat)
		}
		by[m.Chat] = append(by[m.Chat], m)
	}
	for _, id := range order {
		batch := by[id]
		if !o.owns(id) {
			elsewhere = append(elsewhere, id)
			batch = slices.DeleteFunc(batch, func(m *Message) bool { return !m.Secret })
			if len(batch) == 0 {
				continue
			}
		}
		o.queued.Add(int64(len(batch)))
		o.system.Root.Send(o.pid(id), &enqueue{ms: batch})
	}
	if len(elsewhere) > 0 {
		o.owners.Queued(Scope, elsewhere)
	}
}

// pid returns chat id's actor, spawning it on first use.
func (o *Outbox) pid(id int64) *actor.PID {
	o.mu.Lock()
	defer o.mu.Unlock()
	if p, ok := o.pids[id]; ok {
		return p
	}
	var opts []actor.PropsOption
	if o.sup != nil {
		opts = append(opts, actor.WithGuardian(o.sup))
	}
	// The first instance starts empty (its messages come by enqueue); one
	// made by a restart after a panic reloads the chat's queue from the store.
	var spawned atomic.Bool
	p := o.system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		return newChatActor(o, id, spawned.Swap(true))
	}, opts...))
	o.pids[id] = p
	return p
}

// topic returns the thread of a chat's topic (0 if none is known).
func (o *Outbox) topic(chat int64, name string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.topics[topicKey{chat, name}]
}

func (o *Outbox) setTopic(chat int64, name string, thread int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if thread == 0 {
		delete(o.topics, topicKey{chat, name})
		return
	}
	o.topics[topicKey{chat, name}] = thread
}

// Stop stops the workers (an attempt in flight is abandoned; its message
// stays stored) and the chat actors.
func (o *Outbox) Stop() {
	if o.closing.Swap(true) {
		return
	}
	o.cancel() // calls in flight end at once
	o.pool.Stop()
	o.mu.Lock()
	pids := make([]*actor.PID, 0, len(o.pids))
	for _, p := range o.pids {
		pids = append(pids, p)
	}
	o.pids = map[int64]*actor.PID{}
	o.mu.Unlock()
	for _, p := range pids {
		_ = o.system.Root.StopFuture(p).Wait()
	}
	if o.started.Load() {
		o.dels.close() // after the actors: their last deletes are flushed
	}
}

// Stats returns the counters.
func (o *Outbox) Stats() Stats {
	s := Stats{Queued: o.queued.Load(), Sent: o.sent.Load(), Failed: o.failed.Load(), RateLimited: o.limited.Load(),
		Retried: o.retried.Load(), Blocked: o.blocked.Load(), Digests: o.digests.Load()}
	o.latency.AddTo(&s.Latency)
	return s
}

// storeCtx bounds one store call made on the outbox's behalf.
func storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// errAborted marks an attempt the stopping outbox abandoned.
var errAborted = errors.New("chat outbox stopping")
