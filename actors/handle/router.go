package handle

import (
	"sync"

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
}

// NewRouter returns a router that spawns its actors under system's root.
func NewRouter(system *actor.ActorSystem, d *Deps) *Router {
	return &Router{root: system.Root, deps: d, pids: map[string]*actor.PID{}}
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
	r.root.Send(r.PID(RouteKey(o)), &Observe{Obs: o})
}

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
