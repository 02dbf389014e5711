package kit

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Backoff bounds restart storms. The first failure of an actor (none in the
// last Window) restarts it at once; each further failure within Window waits
// twice as long as the one before, from Initial up to Max. While it waits
// the actor's mailbox is suspended: nothing is lost, messages queue.
type Backoff struct {
	Initial time.Duration // wait before the second restart in a row (default 10ms)
	Max     time.Duration // longest wait (default 1s)
	Window  time.Duration // failures further apart than this are not "in a row" (default 10s)
}

// DefaultBackoff is the backoff of a Supervisor built without one. Max is
// short on purpose: a handle actor's observations wait in its mailbox during
// the backoff and count in the ingest backlog, so a long wait would turn a
// panicking actor into ingest pushing back.
var DefaultBackoff = Backoff{Initial: 10 * time.Millisecond, Max: time.Second, Window: 10 * time.Second}

func (b Backoff) resolve() Backoff {
	if b.Initial <= 0 {
		b.Initial = DefaultBackoff.Initial
	}
	if b.Max < b.Initial {
		b.Max = max(DefaultBackoff.Max, b.Initial)
	}
	if b.Window <= 0 {
		b.Window = DefaultBackoff.Window
	}
	return b
}

// delay is the wait before the restart that follows the n-th failure in a row.
func (b Backoff) delay(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := b.Initial
	for i := 2; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// keptFailures bounds the failure times an actor's restart statistics hold
// (protoactor keeps every one until Reset).
const keptFailures = 64

// Supervisor is the supervision strategy of every alertd actor (see the
// package doc): whatever panicked, log it with the actor's name and the
// message's type, drop that message, and restart the actor, after a backoff
// when it fails again and again. A restart runs the actor's producer again,
// so the actor starts over from a new instance that reloads its state from
// the store. It never stops an actor: a stopped actor whose PID is still
// routed turns every message into a dead letter.
//
// It is safe for concurrent use: as a protoactor guardian strategy it is
// called on the failing actor's goroutine.
type Supervisor struct {
	log     *slog.Logger
	backoff Backoff

	mu      sync.Mutex
	closed  bool                       // restart at once from now on
	waiting map[string]*delayedRestart // by child PID id
}

type delayedRestart struct {
	timer  *time.Timer
	parent actor.Supervisor
	child  *actor.PID
}

// NewSupervisor returns the strategy; log nil is slog.Default, a zero
// backoff is DefaultBackoff.
func NewSupervisor(log *slog.Logger, b Backoff) *Supervisor {
	if log == nil {
		log = slog.Default()
	}
	return &Supervisor{log: log, backoff: b.resolve(), waiting: map[string]*delayedRestart{}}
}

var _ actor.SupervisorStrategy = (*Supervisor)(nil)

// HandleFailure implements actor.SupervisorStrategy.
func (s *Supervisor) HandleFailure(_ *actor.ActorSystem, parent actor.Supervisor, child *actor.PID,
	rs *actor.RestartStatistics, reason, message any) {
	recent := rs.NumberOfFailures(s.backoff.Window)
	if recent == 0 || rs.FailureCount() >= keptFailures {
		rs.Reset()
		for range min(recent, keptFailures-1) {
			rs.Fail()
		}
	}
	rs.Fail()
	n := recent + 1
	wait := s.backoff.delay(n)
	attrs := []any{"actor", child.Id, "message", typeName(message), "failures_in_a_row", n, "restart_in", wait}
	if p, ok := reason.(*Panic); ok {
		attrs = append(attrs, "panic", fmt.Sprint(p.Value), "stack", string(p.Stack))
	} else {
		attrs = append(attrs, "panic", fmt.Sprint(reason))
	}
	s.log.Error("actor failed: message dropped, actor restarts with fresh state", attrs...)
	s.restart(parent, child, wait)
}

func (s *Supervisor) restart(parent actor.Supervisor, child *actor.PID, wait time.Duration) {
	s.mu.Lock()
	if wait <= 0 || s.closed {
		s.mu.Unlock()
		parent.RestartChildren(child)
		return
	}
	d := &delayedRestart{parent: parent, child: child}
	d.timer = time.AfterFunc(wait, func() {
		s.mu.Lock()
		mine := s.waiting[child.Id] == d
		if mine {
			delete(s.waiting, child.Id)
		}
		s.mu.Unlock()
		if mine {
			parent.RestartChildren(child)
		}
	})
	s.waiting[child.Id] = d
	s.mu.Unlock()
}

// Hurry restarts pid now if it waits for a backoff, so that stopping it
// (which needs its mailbox running) does not wait for the timer.
func (s *Supervisor) Hurry(pid *actor.PID) {
	s.mu.Lock()
	d := s.waiting[pid.Id]
	if d == nil || !d.timer.Stop() {
		s.mu.Unlock()
		return
	}
	delete(s.waiting, pid.Id)
	s.mu.Unlock()
	d.parent.RestartChildren(d.child)
}

// Close restarts every actor still waiting for its backoff and makes later
// failures restart at once: called before the actors are drained at
// shutdown, it leaves no timer behind.
func (s *Supervisor) Close() {
	s.mu.Lock()
	s.closed = true
	var now []*delayedRestart
	for id, d := range s.waiting {
		if d.timer.Stop() {
			now = append(now, d)
		}
		delete(s.waiting, id)
	}
	s.mu.Unlock()
	for _, d := range now {
		d.parent.RestartChildren(d.child)
	}
}

// Panic is a recovered panic with the stack where it happened, which the
// Supervisor logs. CapturePanic makes one.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) String() string { return fmt.Sprint(p.Value) }

// CapturePanic, deferred first thing in an actor's Receive, re-panics with
// the stack attached (protoactor recovers further up, where the stack is
// gone). It costs nothing until something panics.
func CapturePanic() {
	if r := recover(); r != nil {
		if _, ok := r.(*Panic); ok {
			panic(r)
		}
		panic(&Panic{Value: r, Stack: debug.Stack()})
	}
}
