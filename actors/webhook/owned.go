package webhook

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
)

// Owners says which endpoints this node sends for, on a node of a cluster
// (engine/cluster.Owners); a nil Config.Owners sends for every endpoint, as
// one node does. Only the owner of an endpoint holds its queue in memory and
// makes attempts; every node still writes the deliveries it publishes to the
// shared store, and tells the owner (Queued), which reads them back.
type Owners interface {
	// Owns reports whether this node sends endpoint's deliveries now. It
	// is called once per routed batch and per endpoint actor started, and
	// must be cheap (an atomic load).
	Owns(scope string, endpoint int64) bool
	// Queued tells the owners of these endpoints (on another node) that
	// deliveries were stored for them here. It must not block.
	Queued(scope string, endpoints []int64)
}

// Messages of the endpoint actor about ownership (owned.go).
type (
	// own: this node now sends the endpoint's deliveries; it reads its
	// queue back from the store.
	own struct{}
	// disown: another node will; done is closed once no attempt is in
	// flight and every outcome is in the store.
	disown struct{ done chan struct{} }
	// wake: another node stored deliveries for the endpoint.
	wake struct{}
	// sweep: read the store back if nothing is held (a wake may be lost
	// with the database connection that carried it).
	sweep struct{}
)

// owns reports whether this engine sends endpoint id's deliveries.
func (e *Engine) owns(id int64) bool {
	return e.cfg.Owners == nil || e.cfg.Owners.Owns(e.cfg.Scope, id)
}

// Scope names the engine's deliveries in the shared queue.
func (e *Engine) Scope() string { return e.cfg.Scope }

// Take makes this engine the sender of the endpoints that owned selects
// (Owners.Owns already says so): each reads its queue back from the store,
// with the original delivery ids.
func (e *Engine) Take(owned func(endpoint int64) bool) {
	e.tell(owned, func() any { return &own{} })
}

// Yield stops sending the endpoints that yielded selects (Owners.Owns
// already says no): what they hold in memory or in backoff stays stored,
// and Yield returns once the attempts in flight have come back and their
// outcomes are stored, or with ctx's error. Only then may another node
// take them: never two senders at once.
func (e *Engine) Yield(ctx context.Context, yielded func(endpoint int64) bool) error {
	var waits []chan struct{}
	e.tell(yielded, func() any {
		done := make(chan struct{})
		waits = append(waits, done)
		return &disown{done: done}
	})
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return ctx.Err()
		case <-e.base.Done():
			return nil // stopping: attempts are abandoned, outcomes flushed by Stop
		}
	}
	return nil
}

// Wake tells the owned ones of these endpoints that another node stored
// deliveries for them; the others remember it for when they are taken.
func (e *Engine) Wake(endpoints []int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing.Load() {
		return
	}
	for _, id := range endpoints {
		if pid := e.eps[id]; pid != nil {
			e.root.Send(pid, &wake{})
		}
	}
}

// Sweep has every owned endpoint that holds nothing look in the store once.
func (e *Engine) Sweep() {
	e.tell(func(int64) bool { return true }, func() any { return &sweep{} })
}

// tell sends a message made by msg to each endpoint actor that sel selects.
func (e *Engine) tell(sel func(int64) bool, msg func() any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing.Load() {
		return
	}
	for id, pid := range e.eps {
		if sel(id) {
			e.root.Send(pid, msg())
		}
	}
}

// onOwnership handles the ownership messages; it reports false for any
// other message.
func (a *endpointActor) onOwnership(c actor.Context, msg any) bool {
	switch msg.(type) {
	case *own:
		a.owned, a.woken = true, false
		a.reread()
	case *wake:
		if !a.owned {
			a.woken = true // read back when taken
			return true
		}
		a.reread()
	case *sweep:
		if a.owned && !a.spilled && len(a.queue)+len(a.retries)+len(a.inflight)+len(a.waiting) == 0 {
			a.reread()
		}
	case *disown:
		m := msg.(*disown)
		a.owned = false
		for d, t := range a.waiting {
			t.Stop() // stays stored, with its attempt count
			delete(a.waiting, d)
		}
		a.queue, a.retries, a.recent = nil, nil, nil
		a.spilled, a.missed, a.loading = false, false, false
		a.gen++ // a read-back under way answers a former ownership
		a.yields = append(a.yields, m.done)
		a.yielded()
		return true
	default:
		return false
	}
	a.pump(c)
	return true
}

// reread marks the endpoint spilled so that pump reads its queue back from
// the store (what it holds is left out).
func (a *endpointActor) reread() {
	a.spilled = true
	a.missed = a.missed || a.loading
}

// yielded answers the pending disowns once nothing is in flight: after the
// effects goroutine has stored every outcome reported so far.
func (a *endpointActor) yielded() {
	if a.owned || len(a.inflight) > 0 || len(a.yields) == 0 {
		return
	}
	for _, done := range a.yields {
		a.e.effects.barrier(done)
	}
	a.yields = nil
}
