//go:build !linux || wsportable

package ws

// The portable transport: what alertd serves WebSockets with where there is
// no epoll (macOS, Windows), and on Linux under the wsportable build tag
// (so that the conformance tests run against it there too). It has the
// epoll transport's API and behaviour (Handler events, Options, close
// states, Stats, Deliveries) with a plainer shape: each connection owns two
// goroutines, a reader (fasthttp's hijack goroutine, reading the socket with
// blocking reads) and a writer (draining the connection's queue with
// blocking writes under Options.WriteTimeout). Handler events and timer
// callbacks of every connection still run one at a time: they hold the
// hub's loop lock, as they would run on the epoll loop.

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
)

// Hub owns every WebSocket of the process. Goroutines: two per connection.
type Hub struct {
	cfg Config
	log *slog.Logger

	// loop serialises handler events and timer callbacks (the epoll
	// transport runs them on its one loop goroutine).
	loop sync.Mutex

	// mu guards state and conns.
	mu    sync.Mutex
	state hubState
	conns map[*Conn]struct{}

	open    atomic.Int64
	nextID  atomic.Uint64
	stats   counters
	armed   atomic.Int64 // timers armed (tests)
	wg      sync.WaitGroup
	drained chan struct{} // closed once no connection is open after Shutdown began

	shards []*deliveries // connections count their deliveries in shard id % len

	upgrades pendingUpgrades
	// beforeTakeOver, set by tests, runs on the hijack goroutine before the
	// 101 is written.
	beforeTakeOver func(net.Conn)
}

type hubState uint8

const (
	hubNew hubState = iota
	hubRunning
	hubStopping
	hubStopped
)

// NewHub makes a hub; Start runs it.
func NewHub(cfg Config) (*Hub, error) {
	cfg.resolve()
	h := &Hub{cfg: cfg, log: cfg.Logger, conns: map[*Conn]struct{}{}, drained: make(chan struct{})}
	for range max(runtime.GOMAXPROCS(0), 2) {
		h.shards = append(h.shards, &deliveries{})
	}
	return h, nil
}

// SendPath is SendWrite: the portable transport writes with its
// connections' writer goroutines whatever Config.Send says.
func (h *Hub) SendPath() SendPath { return SendWrite }

// Start lets upgrades in.
func (h *Hub) Start() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != hubNew {
		return errors.New("ws: hub already started")
	}
	h.state = hubRunning
	return nil
}

func (h *Hub) deliveryStats() []*deliveries { return h.shards }

// Conns is the number of open connections.
func (h *Hub) Conns() int64 { return h.open.Load() }

func (h *Hub) running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state == hubRunning
}

// admit counts c open, registers it and counts its goroutine in wg, unless
// the hub stopped taking connections.
func (h *Hub) admit(c *Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != hubRunning {
		return false
	}
	h.open.Add(1)
	h.conns[c] = struct{}{}
	h.wg.Add(1)
	return true
}

// forget is admit undone (but for wg), when c is released.
func (h *Hub) forget(c *Conn) {
	h.mu.Lock()
	delete(h.conns, c)
	last := h.open.Add(-1) == 0 && h.state == hubStopping
	h.mu.Unlock()
	if last {
		h.signalDrained()
	}
}

func (h *Hub) signalDrained() {
	select {
	case <-h.drained:
	default:
		close(h.drained)
	}
}

// Shutdown refuses new upgrades, sends close 1001 to every connection after
// what is already queued, and waits until the sockets are closed or ctx
// ends; then it drops what is left and returns ctx's error if it had to
// force. OnClose is called for every connection before Shutdown returns.
func (h *Hub) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	switch h.state {
	case hubNew:
		h.state = hubStopped
		h.mu.Unlock()
		return nil
	case hubStopping, hubStopped:
		h.mu.Unlock()
		return errors.New("ws: hub already shut down")
	}
	h.state = hubStopping
	conns := h.snapshotLocked()
	none := h.open.Load() == 0
	h.mu.Unlock()
	if none {
		h.signalDrained()
	}
	for _, c := range conns {
		c.closeGraceful(ServerShutdown, ws.StatusGoingAway, "server shutdown", false)
	}
	var err error
	select {
	case <-h.drained:
	case <-ctx.Done():
		err = ctx.Err()
		h.mu.Lock()
		conns = h.snapshotLocked()
		h.mu.Unlock()
		for _, c := range conns {
			c.kill(ServerShutdown)
		}
	}
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	t := time.NewTimer(2 * time.Second)
	select {
	case <-done:
	case <-t.C:
		h.log.Warn("ws: connections still closing after shutdown")
	}
	t.Stop()
	h.mu.Lock()
	h.state = hubStopped
	h.mu.Unlock()
	return err
}

func (h *Hub) snapshotLocked() []*Conn {
	out := make([]*Conn, 0, len(h.conns))
	for c := range h.conns {
		out = append(out, c)
	}
	return out
}
