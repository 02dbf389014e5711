//go:build linux && !wsportable

package ws

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Hub owns every WebSocket of the process: one epoll loop goroutine that
// reads all sockets and fires all timers, and a small pool of writer
// goroutines that drain write queues. Goroutines: 1 + Config.Writers, however
// many connections.
type Hub struct {
	cfg  Config
	log  *slog.Logger
	epfd int
	efd  int

	mu    sync.Mutex
	state hubState

	open    atomic.Int64
	nextID  atomic.Uint64
	stats   counters
	timers  timers
	runq    runQueue
	wg      sync.WaitGroup
	loopEnd chan struct{}
	drained chan struct{}

	writers []*writer                // made by NewHub, run by Start
	direct  [directShards]deliveries // counters of direct writes (direct.go)
	// directOn: senders may write quiet connections' frames themselves
	// (Config.DirectWrites on the write path); fixed by NewHub.
	directOn bool

	upgrades pendingUpgrades
	// beforeTakeOver, set by tests, runs on the hijack goroutine before the
	// 101 is written.
	beforeTakeOver func(net.Conn)

	wakeFlag atomic.Bool
	inMu     sync.Mutex
	inbox    []cmd
	inClosed bool

	// loop goroutine only
	now          int64
	rbuf         []byte
	fds          []*Conn
	shuttingDown bool
	drainedDone  bool
	exit         bool
	due          []*timer
	spare        []cmd
}

type hubState uint8

const (
	hubNew hubState = iota
	hubRunning
	hubStopping
	hubStopped
)

type cmdKind uint8

const (
	cmdAdd cmdKind = iota
	cmdRelease
	cmdShutdown
	cmdForce
	cmdStop
)

type cmd struct {
	kind cmdKind
	c    *Conn
}

// NewHub creates the epoll instance; Start runs it.
func NewHub(cfg Config) (*Hub, error) {
	cfg.resolve()
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}); err != nil {
		unix.Close(epfd)
		unix.Close(efd)
		return nil, err
	}
	h := &Hub{
		cfg:     cfg,
		log:     cfg.Logger,
		epfd:    epfd,
		efd:     efd,
		loopEnd: make(chan struct{}),
		drained: make(chan struct{}),
		rbuf:    make([]byte, cfg.ReadBufferSize),
	}
	h.timers.wake = h.wake
	h.runq.init()
	for range cfg.Writers {
		h.writers = append(h.writers, newWriter(h))
	}
	if cfg.Send == SendIOURing {
		h.setupURing()
	}
	h.directOn = h.cfg.DirectWrites && h.cfg.Send == SendWrite
	return h, nil
}

// setupURing gives every writer a ring, or none of them one (then the
// writers write, and SendPath says so).
func (h *Hub) setupURing() {
	for _, w := range h.writers {
		u, err := newURingSender()
		if err != nil {
			h.log.Warn("ws: io_uring unavailable; WebSocket frames go out with send(2)", "err", err)
			for _, w := range h.writers {
				if w.u != nil {
					w.u.ring.Close()
					w.u = nil
				}
			}
			h.cfg.Send = SendWrite
			return
		}
		w.u = u
	}
}

// SendPath is how the writers send: Config.Send, or SendWrite where io_uring
// could not be set up.
func (h *Hub) SendPath() SendPath { return h.cfg.Send }

// Start runs the loop and the writers.
func (h *Hub) Start() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != hubNew {
		return errors.New("ws: hub already started")
	}
	h.state = hubRunning
	h.wg.Add(len(h.writers))
	for _, w := range h.writers {
		go w.run()
	}
	go h.loop()
	return nil
}

// deliveryStats are the writers' and the direct writes' delivery counters.
func (h *Hub) deliveryStats() []*deliveries {
	out := make([]*deliveries, 0, len(h.writers)+directShards)
	for _, w := range h.writers {
		out = append(out, &w.st)
	}
	for i := range h.direct {
		out = append(out, &h.direct[i])
	}
	return out
}

// Conns is the number of open connections.
func (h *Hub) Conns() int64 { return h.open.Load() }

// Shutdown refuses new upgrades, sends close 1001 to every connection after
// what is already queued, and waits until the sockets are closed or ctx
// ends; then it drops what is left, stops every goroutine of the hub and
// returns ctx's error if it had to force. OnClose is called for every
// connection before Shutdown returns.
func (h *Hub) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	switch h.state {
	case hubNew:
		h.state = hubStopped
		h.mu.Unlock()
		h.closeFDs()
		return nil
	case hubStopping, hubStopped:
		h.mu.Unlock()
		return errors.New("ws: hub already shut down")
	}
	h.state = hubStopping
	h.mu.Unlock()

	h.post(cmd{kind: cmdShutdown})
	var err error
	select {
	case <-h.drained:
	case <-ctx.Done():
		err = ctx.Err()
		h.post(cmd{kind: cmdForce})
		t := time.NewTimer(2 * time.Second)
		select {
		case <-h.drained:
		case <-t.C:
		}
		t.Stop()
	}
	h.runq.stop()
	h.wg.Wait() // writers
	h.inMu.Lock()
	h.inbox = append(h.inbox, cmd{kind: cmdStop})
	h.inClosed = true
	h.inMu.Unlock()
	h.wakeNow()
	<-h.loopEnd
	h.mu.Lock()
	h.state = hubStopped
	h.mu.Unlock()
	return err
}

func (h *Hub) closeFDs() {
	for _, w := range h.writers {
		if w.u != nil {
			w.u.ring.Close()
		}
	}
	unix.Close(h.epfd)
	unix.Close(h.efd)
}

// post hands a command to the loop; false once the loop has stopped.
func (h *Hub) post(m cmd) bool {
	h.inMu.Lock()
	if h.inClosed {
		h.inMu.Unlock()
		return false
	}
	h.inbox = append(h.inbox, m)
	h.inMu.Unlock()
	h.wake()
	return true
}

// wake interrupts epoll_wait, once per loop iteration at most.
func (h *Hub) wake() {
	if h.wakeFlag.CompareAndSwap(false, true) {
		h.wakeNow()
	}
}

func (h *Hub) wakeNow() {
	var one = [8]byte{1}
	for {
		_, err := unix.Write(h.efd, one[:])
		if err != unix.EINTR {
			return
		}
	}
}

// admit reports whether an upgrade may proceed and, if so, counts the
// connection as open (so Shutdown waits for it).
func (h *Hub) admit() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != hubRunning {
		return false
	}
	h.open.Add(1)
	return true
}

func (h *Hub) running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state == hubRunning
}

// runQueue is the writers' queue of connections with frames to write. A
// connection is in it at most once (Conn.scheduled), so pushes never block.
type runQueue struct {
	mu      sync.Mutex
	cond    sync.Cond
	ring    []*Conn
	head, n int
	stopped bool
}

func (r *runQueue) init() {
	r.cond.L = &r.mu
	r.ring = make([]*Conn, 64)
}

func (r *runQueue) push(c *Conn) {
	r.mu.Lock()
	if r.n == len(r.ring) {
		nr := make([]*Conn, 2*len(r.ring))
		for i := range r.n {
			nr[i] = r.ring[(r.head+i)%len(r.ring)]
		}
		r.ring, r.head = nr, 0
	}
	r.ring[(r.head+r.n)%len(r.ring)] = c
	r.n++
	r.mu.Unlock()
	r.cond.Signal()
}

// popBatch blocks for the next connection and appends it and up to max-1
// more that are waiting to dst; dst unchanged once stopped.
func (r *runQueue) popBatch(dst []*Conn, max int) []*Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.n == 0 {
		if r.stopped {
			return dst
		}
		r.cond.Wait()
	}
	for k := min(r.n, max); k > 0; k-- {
		dst = append(dst, r.ring[r.head])
		r.ring[r.head] = nil
		r.head = (r.head + 1) % len(r.ring)
		r.n--
	}
	return dst
}

// pop blocks for the next connection; nil once stopped.
func (r *runQueue) pop() *Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.n == 0 {
		if r.stopped {
			return nil
		}
		r.cond.Wait()
	}
	c := r.ring[r.head]
	r.ring[r.head] = nil
	r.head = (r.head + 1) % len(r.ring)
	r.n--
	return c
}

func (r *runQueue) stop() {
	r.mu.Lock()
	r.stopped = true
	clear(r.ring)
	r.n = 0
	r.mu.Unlock()
	r.cond.Broadcast()
}
