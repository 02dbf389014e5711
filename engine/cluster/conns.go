package cluster

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/protocol"
)

// EventConns carries the nodes' socket counts per quota. Items: a count
// "<pool>,<product>,<account>,<held>" (what the node holds now), "reset"
// (forget what the node said before; its table follows), "sync" (every
// node: send your table) and "beat" (the node is alive).
const EventConns = "conns"

// RegConns is not a registry: the feed calls its reload when its LISTEN
// holds (at start and after a lost connection), when this node sends its
// table and asks for everyone's.
const RegConns = "conns"

// ConnCounts makes the per-account connection limits count every node's
// sockets (CONTRACT section 7). Each node tells the others its count of a
// quota whenever it changes (session.ConnLimit.Shared, in order), and
// Reserve adds what the others hold (Others, from memory: a login waits
// for no round trip). A node's counts die with it: nodes beat every
// beatEvery, and one not heard for deadAfter is forgotten (a SIGKILLed
// node's sockets are gone, its clients reconnect elsewhere).
//
// The limit is as strict as the feed is fast: two logins of one account on
// two nodes within a NOTIFY's delay (tens of ms) may both take the last
// slot.
//
// mu guards nodes and total. Lock order: the ConnLimit's mu, then the
// feed's, or then mu; heard takes mu and never holds it while it calls
// into the ConnLimit.
type ConnCounts struct {
	feed  *Feed
	local *session.ConnLimit
	now   func() time.Time

	mu    sync.Mutex
	nodes map[string]*nodeConns
	total map[session.Quota]int // the sum over nodes

	cancel context.CancelFunc
	done   chan struct{}
}

type nodeConns struct {
	seen time.Time
	held map[session.Quota]int
}

// How often nodes beat, and when one not heard from is forgotten.
const (
	beatEvery = 5 * time.Second
	deadAfter = 3 * beatEvery
)

// ShareConns wires local into f (before f starts) and starts the beat;
// Stop ends it.
func ShareConns(f *Feed, local *session.ConnLimit) *ConnCounts {
	c := &ConnCounts{feed: f, local: local, now: time.Now, nodes: map[string]*nodeConns{},
		total: map[session.Quota]int{}, done: make(chan struct{})}
	local.Others = c.others
	local.Shared = func(q session.Quota, held int) { f.Publish(EventConns, encodeQuota(q, held)) }
	f.HandleEvents(EventConns, c.heard)
	f.Register(RegConns, func(context.Context, []string) error {
		c.sendTable()
		f.Publish(EventConns, "sync")
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.beat(ctx)
	return c
}

// Stop ends the beat.
func (c *ConnCounts) Stop() {
	c.cancel()
	<-c.done
}

// others is session.ConnLimit.Others.
func (c *ConnCounts) others(q session.Quota) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total[q]
}

// sendTable tells the others everything this node holds, after a reset.
func (c *ConnCounts) sendTable() {
	c.feed.Publish(EventConns, "reset")
	c.local.Each(func(q session.Quota, held int) { c.feed.Publish(EventConns, encodeQuota(q, held)) })
}

// heard applies another node's items, in the order it sent them.
func (c *ConnCounts) heard(node string, items []string) {
	sync := false
	c.mu.Lock()
	n := c.nodes[node]
	if n == nil {
		n = &nodeConns{held: map[session.Quota]int{}}
		c.nodes[node] = n
	}
	n.seen = c.now()
	for _, it := range items {
		switch it {
		case "beat":
		case "sync":
			sync = true
		case "reset":
			c.forgetLocked(n)
		default:
			q, held, ok := decodeQuota(it)
			if !ok {
				continue
			}
			c.total[q] += held - n.held[q]
			if c.total[q] <= 0 {
				delete(c.total, q)
			}
			if held > 0 {
				n.held[q] = held
			} else {
				delete(n.held, q)
			}
		}
	}
	c.mu.Unlock()
	if sync {
		c.sendTable()
	}
}

// forgetLocked takes n's counts out of the total.
func (c *ConnCounts) forgetLocked(n *nodeConns) {
	for q, held := range n.held {
		if c.total[q] -= held; c.total[q] <= 0 {
			delete(c.total, q)
		}
	}
	clear(n.held)
}

// beat tells the others this node is alive and forgets the nodes not
// heard from for deadAfter.
func (c *ConnCounts) beat(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(beatEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.feed.Publish(EventConns, "beat")
		c.expire()
	}
}

// expire forgets the nodes not heard from for deadAfter.
func (c *ConnCounts) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, n := range c.nodes {
		if c.now().Sub(n.seen) > deadAfter {
			c.forgetLocked(n)
			delete(c.nodes, id)
		}
	}
}

func encodeQuota(q session.Quota, held int) string {
	return strconv.Itoa(int(q.Pool)) + "," + string(q.Product) + "," + q.Account + "," + strconv.Itoa(held)
}

func decodeQuota(s string) (session.Quota, int, bool) {
	f := strings.Split(s, ",")
	if len(f) != 4 {
		return session.Quota{}, 0, false
	}
	pool, err1 := strconv.Atoi(f[0])
	held, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || pool < 0 || pool > 255 || held < 0 {
		return session.Quota{}, 0, false
	}
	return session.Quota{Pool: session.SocketKind(pool), Product: protocol.Product(f[1]), Account: f[2]}, held, true
}
