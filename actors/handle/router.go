package handle

import (
	"sync"
	"sync/atomic"

	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Lookup is the one way to reach the actor that owns a routing key (a handle
// name or a feed). A cluster-backed lookup can replace the local one later
// without touching callers.
type Lookup interface {
	PID(key string) *actor.PID
}

// Router spawns actors on first use and routes observations to them.
type Router struct {
	root *actor.RootContext
	deps *Deps

	mu   sync.RWMutex
	pids map[string]*actor.PID

	// backlog counts observations routed but not yet handled, so that
	// ingest can push back instead of queueing without bound.
	backlog atomic.Int64
}

// NewRouter returns a router that spawns its actors under system's root.
func NewRouter(system *actor.ActorSystem, d *Deps) *Router {
	r := &Router{root: system.Root, deps: d, pids: map[string]*actor.PID{}}
	d.done = func() { r.backlog.Add(-1) }
	return r
}

// PID returns the actor of key, spawning it if needed.
func (r *Router) PID(key string) *actor.PID {
	r.mu.RLock()
	pid := r.pids[key]
	r.mu.RUnlock()
	if pid != nil {
		return pid
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if pid = r.pids[key]; pid == nil {
		pid = r.root.Spawn(Props(key, r.deps))
		r.pids[key] = pid
	}
	return pid
}

// Route sends o to its owner. Calls for one key are delivered in call order.
func (r *Router) Route(o *protocol.Observation) {
	r.backlog.Add(1)
	r.root.Send(r.PID(RouteKey(o)), &Observe{Obs: o})
}

// Backlog is the number of routed observations not yet handled.
func (r *Router) Backlog() int64 { return r.backlog.Load() }

// Len is the number of live actors.
func (r *Router) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.pids)
}

// Stop stops every actor after it has handled what is already in its mailbox
// (each gets protoactor's 10 seconds to do so).
func (r *Router) Stop() {
	r.mu.Lock()
	pids := make([]*actor.PID, 0, len(r.pids))
	for _, p := range r.pids {
		pids = append(pids, p)
	}
	r.pids = map[string]*actor.PID{}
	r.mu.Unlock()
	futures := make([]*actor.Future, len(pids))
	for i, p := range pids {
		futures[i] = r.root.PoisonFuture(p)
	}
	for _, f := range futures {
		_ = f.Wait() // a timeout here means the actor was already gone
	}
}
