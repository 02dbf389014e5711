package cluster

import (
	"context"
	"hash/fnv"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Partitions is how many parts the cluster's sending queues are cut into
// (webhook endpoints and chats, by scope and key): each part has one owner among the
// live members, placed by rendezvous hashing, and is held under a
// PostgreSQL advisory lock while owned.
const Partitions = 64

// EventQueued is the feed's event for deliveries a node stored for an
// endpoint it does not own: items are "<scope>:<endpoint>".
const EventQueued = "queued"

// Queue is a sender of queued deliveries that the cluster shares out
// (a webhook.Engine, the chat Outbox): the owner of a key sends its deliveries.
type Queue interface {
	// Scope names the queue's keys (a product's webhooks).
	Scope() string
	// Take makes this node the sender of the keys owned selects: they read
	// their queues back from the store.
	Take(owned func(key int64) bool)
	// Yield stops sending the keys yielded selects and returns once their
	// attempts in flight are over and stored (or ctx ends).
	Yield(ctx context.Context, yielded func(key int64) bool) error
	// Wake: another node stored deliveries for these keys.
	Wake(keys []int64)
	// Sweep: owned keys that hold nothing look in the store once.
	Sweep()
}

// Owners decides which node sends each queued delivery (see the package
// doc, "Sent once"): part p of the keys is owned by the live member that
// rendezvous hashing picks for p, and only while that node holds p's
// advisory lock on a connection of its own. A lock is given up only after
// the queues yielded (nothing in flight, outcomes stored), and it dies with
// the node's connection: a SIGKILLed node's parts are free at once, and
// taken by their new owners as soon as membership drops the node.
//
// It implements webhook.Owners. owned is read by the senders' goroutines
// (atomics); the loop goroutine alone changes it, and alone uses conn.
type Owners struct {
	url     string
	self    string
	members func() []string
	feed    *Feed
	log     *slog.Logger
	class   int32 // the advisory locks' first key: the cluster's name
	every   time.Duration

	queues []Queue // fixed before Start
	byName map[string]Queue

	owned  [Partitions]atomic.Bool
	rounds atomic.Int64 // rounds run (tests wait for them)

	cancel context.CancelFunc
	done   chan struct{}
}

// NewOwners returns the owners of this node (self, its --cluster-addr),
// over the database at url; members lists the live members' addresses.
// Add the queues, then Start.
func NewOwners(url, cluster, self string, members func() []string, feed *Feed, log *slog.Logger) *Owners {
	o := &Owners{url: url, self: self, members: members, feed: feed, log: log, class: hash32("alertd queues " + cluster),
		every: time.Second, byName: map[string]Queue{}, done: make(chan struct{})}
	if feed != nil {
		feed.HandleEvents(EventQueued, o.heard)
	}
	return o
}

// Owners of n's cluster over the database at url.
func (n *Node) Owners(url string, feed *Feed) *Owners {
	return NewOwners(url, n.cfg.Name, n.cfg.Addr, n.Members, feed, n.log)
}

// Add shares q out; before Start.
func (o *Owners) Add(q Queue) {
	o.queues = append(o.queues, q)
	o.byName[q.Scope()] = q
}

// Part is the part of the keys that key of scope falls in.
func Part(scope string, key int64) int {
	h := fnv.New32a()
	h.Write([]byte(scope))
	h.Write([]byte{':'})
	h.Write(strconv.AppendInt(nil, key, 10))
	return int(mix(uint64(h.Sum32())) % Partitions)
}

// mix spreads FNV's output over all the bits (murmur3's finaliser): keys
// that differ in their last characters would otherwise rank alike.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// OwnerOf is the member (of members, by --cluster-addr) that owns part p:
// rendezvous hashing, so a member joining or leaving moves only its share.
func OwnerOf(members []string, p int) string {
	var best string
	var top uint64
	for _, m := range members {
		h := fnv.New64a()
		h.Write([]byte(m))
		h.Write([]byte{'#'})
		h.Write(strconv.AppendInt(nil, int64(p), 10))
		if v := mix(h.Sum64()); best == "" || v > top || v == top && m < best {
			best, top = m, v
		}
	}
	return best
}

// Owns reports whether this node sends key's deliveries now.
func (o *Owners) Owns(scope string, key int64) bool { return o.owned[Part(scope, key)].Load() }

// Queued tells the other nodes that deliveries for keys were stored here
// (the owner reads them back).
func (o *Owners) Queued(scope string, keys []int64) {
	if o.feed == nil {
		return
	}
	for _, k := range keys {
		o.feed.Publish(EventQueued, scope+":"+strconv.FormatInt(k, 10))
	}
}

// heard wakes the keys another node stored deliveries for.
func (o *Owners) heard(_ string, items []string) {
	by := map[string][]int64{}
	for _, it := range items {
		scope, k, ok := strings.Cut(it, ":")
		key, err := strconv.ParseInt(k, 10, 64)
		if !ok || err != nil || o.byName[scope] == nil {
			continue
		}
		by[scope] = append(by[scope], key)
	}
	for scope, keys := range by {
		o.byName[scope].Wake(keys)
	}
}

// Start runs the loop that takes and yields parts as members come and go.
func (o *Owners) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	o.cancel = cancel
	go o.loop(ctx)
}

// Stop ends the loop and closes its connection, which frees the locks;
// call it once the queues are stopped (their outcomes stored).
func (o *Owners) Stop() {
	if o.cancel == nil {
		return
	}
	o.cancel()
	<-o.done
}

// sweepEvery is how often owned keys that hold nothing look in the store
// (a wake is lost when the feed's connection drops).
const sweepEvery = 10 * time.Second

func (o *Owners) loop(ctx context.Context) {
	defer close(o.done)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	lastSweep := time.Now()
	for {
		if conn == nil {
			var err error
			if conn, err = o.connect(ctx); err != nil && ctx.Err() == nil {
				o.log.Warn("cluster: queue owners cannot reach the database; retrying", "err", err)
			}
		}
		if conn != nil {
			if err := o.round(ctx, conn); err != nil && ctx.Err() == nil {
				// The locks died with the connection: stop sending at
				// once, whatever is in flight (at least once across it).
				o.log.Warn("cluster: queue owners lost the database; yielding every part", "err", err)
				conn.Close(context.Background())
				conn = nil
				o.yield(ctx, o.ownedParts())
			}
		}
		o.rounds.Add(1)
		if time.Since(lastSweep) >= sweepEvery {
			lastSweep = time.Now()
			for _, q := range o.queues {
				q.Sweep()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// connect opens the lock connection (dialLock).
func (o *Owners) connect(ctx context.Context) (*pgx.Conn, error) { return dialLock(ctx, o.url) }

// ownedParts are the parts this node owns now.
func (o *Owners) ownedParts() []int {
	var out []int
	for p := range Partitions {
		if o.owned[p].Load() {
			out = append(out, p)
		}
	}
	return out
}

// round yields the parts that belong elsewhere now, then takes the free
// ones that belong here. An error means the connection is gone.
func (o *Owners) round(ctx context.Context, conn *pgx.Conn) error {
	members := o.members()
	here := false
	for _, m := range members {
		here = here || m == o.self
	}
	var give, want []int32
	for p := range Partitions {
		mine := here && OwnerOf(members, p) == o.self
		switch owned := o.owned[p].Load(); {
		case owned && !mine:
			give = append(give, int32(p))
		case !owned && mine:
			want = append(want, int32(p))
		}
	}
	if len(give) > 0 {
		parts := make([]int, len(give))
		for i, p := range give {
			parts[i] = int(p)
		}
		o.yield(ctx, parts)
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1, p) FROM unnest($2::int4[]) p", o.class, give); err != nil {
			return err
		}
		o.log.Info("cluster: queue parts given up", "parts", len(give), "members", len(members))
	}
	if len(want) == 0 {
		_, err := conn.Exec(ctx, "SELECT 1") // the locks live while this connection does
		return err
	}
	rows, err := conn.Query(ctx, "SELECT p FROM unnest($2::int4[]) p WHERE pg_try_advisory_lock($1, p)", o.class, want)
	if err != nil {
		return err
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return err
	}
	if len(got) == 0 {
		return nil
	}
	var taken [Partitions]bool
	for _, p := range got {
		o.owned[p].Store(true) // before Take: a key put meanwhile starts owned
		taken[p] = true
	}
	for _, q := range o.queues {
		scope := q.Scope()
		q.Take(func(key int64) bool { return taken[Part(scope, key)] })
	}
	o.log.Info("cluster: queue parts taken", "parts", len(got), "members", len(members))
	return nil
}

// yieldWait bounds how long a yield waits for attempts in flight (a
// webhook's timeout is seconds).
const yieldWait = 30 * time.Second

// yield stops sending parts: owned is cleared first (a key put meanwhile
// starts not owned), then every queue yields them.
func (o *Owners) yield(ctx context.Context, parts []int) {
	var gone [Partitions]bool
	for _, p := range parts {
		o.owned[p].Store(false)
		gone[p] = true
	}
	wctx, cancel := context.WithTimeout(ctx, yieldWait)
	defer cancel()
	for _, q := range o.queues {
		scope := q.Scope()
		if err := q.Yield(wctx, func(key int64) bool { return gone[Part(scope, key)] }); err != nil {
			o.log.Warn("cluster: a queue did not yield in time; its attempts in flight may be made again by the new owner",
				"scope", scope, "err", err)
		}
	}
}
