package handle

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"
)

// DefaultPassivateAfter is how long an entity actor stays without messages
// before it is passivated (between once and twice this long, see sweep).
const DefaultPassivateAfter = 10 * time.Minute

// Option configures a Router.
type Option func(*Router)

// WithPassivateAfter sets how long an entity actor may idle before it is
// passivated; 0 keeps every activation until Stop.
func WithPassivateAfter(d time.Duration) Option { return func(r *Router) { r.idle = max(d, 0) } }

// WithSupervisor supervises the entity actors with s (the engine passes the
// kit's, so that every actor is supervised alike). Default: a Supervisor of
// its own with kit.DefaultBackoff, logging to Deps.Log.
func WithSupervisor(s *kit.Supervisor) Option { return func(r *Router) { r.sup = s } }

// entityKey is an identity of a kind.
type entityKey struct{ kind, identity string }

// activation is one live entity actor as the router sees it.
//
// sent counts the messages told or asked through the router (senders add
// under the router's read lock), handled those the actor has handled (only
// the actor adds), seen is sent as the previous sweep found it (only sweeps
// touch it). They sit on separate cache lines so that senders and the actor
// never write the same one: the struct is 128 bytes, a size class whose
// objects are 128-byte aligned.
type activation struct {
	key     entityKey // 32 bytes
	pid     *actor.PID
	sent    atomic.Int64
	_       [16]byte
	handled atomic.Int64
	seen    atomic.Int64
	_       [48]byte
}

// count records one message sent to a; called under mu (either mode).
func (a *activation) count() { a.sent.Add(1) }

// Router is the local Lookup: it starts entity actors on first use, routes
// observations to them and passivates the idle ones. One per actor system.
type Router struct {
	root  *actor.RootContext
	deps  *Deps
	sup   *kit.Supervisor
	idle  time.Duration
	place Placement // handle actors elsewhere (a cluster); nil: here

	// mu guards live and closed. Senders hold it for reading across the send
	// itself (a mailbox push, never I/O), so that passivation, which holds
	// it for writing, sees every message already sent.
	mu     sync.RWMutex
	live   map[entityKey]*activation
	closed bool

	// backlog counts observations routed but not yet handled, and
	// backlogBytes their lines' bytes, so that ingest can push back instead
	// of queueing without bound.
	backlog, backlogBytes atomic.Int64

	deadLetters *eventstream.Subscription
	sweeper     *sweeper
	stopOnce    sync.Once
}

// NewRouter returns a router that spawns its actors under system's root.
func NewRouter(system *actor.ActorSystem, d *Deps, opts ...Option) *Router {
	r := &Router{root: system.Root, deps: d, idle: DefaultPassivateAfter, live: map[entityKey]*activation{}}
	for _, o := range opts {
		o(r)
	}
	if r.sup == nil {
		r.sup = kit.NewSupervisor(d.Log, kit.Backoff{})
	}
	// Safety net: an observation that reaches no actor (one stopped by
	// something other than passivation) must not hold the backlog forever.
	r.deadLetters = system.EventStream.Subscribe(func(ev any) {
		if dl, ok := ev.(*actor.DeadLetterEvent); ok {
			if o, ok := dl.Message.(*Observe); ok {
				r.backlog.Add(-1)
				r.backlogBytes.Add(-int64(len(o.Obs.Raw)))
				d.Log.Error("observation lost: its actor had stopped", "actor", dl.PID.String(), "kind", o.Obs.Kind)
			}
		}
	})
	if r.idle > 0 {
		r.sweeper = startSweeper(r, r.idle)
	}
	return r
}

// Route sends o to its owner. Calls for one owner are delivered in call order.
func (r *Router) Route(o *protocol.Observation) {
	identity, kind := Route(o)
	if r.place != nil && kind == KindHandle {
		r.place.Tell(identity, &Observe{Obs: o})
		return
	}
	r.backlog.Add(1)
	r.backlogBytes.Add(int64(len(o.Raw)))
	if !r.tell(entityKey{kind, identity}, &Observe{Obs: o}) {
		r.backlog.Add(-1)
		r.backlogBytes.Add(-int64(len(o.Raw)))
	}
}

// Backlog is the number of routed observations not yet handled.
func (r *Router) Backlog() int64 { return r.backlog.Load() }

// BacklogBytes is the size of their lines (Observation.Raw); their decoded
// form takes about as much again.
func (r *Router) BacklogBytes() int64 { return r.backlogBytes.Load() }

// Len is the number of live activations.
func (r *Router) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.live)
}

// Get implements Lookup.
func (r *Router) Get(identity, kind string) *actor.PID {
	if r.place != nil && kind == KindHandle {
		return r.place.Get(identity)
	}
	k := entityKey{kind, identity}
	r.mu.RLock()
	a := r.live[k]
	r.mu.RUnlock()
	if a != nil {
		return a.pid
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if a = r.activation(k); a == nil {
		return nil
	}
	return a.pid
}

// Tell implements Lookup.
func (r *Router) Tell(identity, kind string, msg any) {
	if r.place != nil && kind == KindHandle {
		r.place.Tell(identity, msg)
		return
	}
	r.tell(entityKey{kind, identity}, msg)
}

// RequestFuture implements Lookup. After Stop the future fails at once
// (kit.ErrStopped through kit.Await).
func (r *Router) RequestFuture(identity, kind string, msg any, timeout time.Duration) *actor.Future {
	if r.place != nil && kind == KindHandle {
		return r.place.RequestFuture(identity, msg, timeout)
	}
	var f *actor.Future
	send := func(pid *actor.PID) { f = r.root.RequestFuture(pid, msg, timeout) }
	if !r.send(entityKey{kind, identity}, send) {
		f = actor.NewFuture(r.root.ActorSystem(), timeout)
		r.root.Send(f.PID(), &actor.DeadLetterResponse{})
	}
	return f
}

// tell sends msg on the live activation of k, or a new one; false after Stop.
func (r *Router) tell(k entityKey, msg any) bool {
	r.mu.RLock()
	if a := r.live[k]; a != nil {
		a.count()
		r.root.Send(a.pid, msg)
		r.mu.RUnlock()
		return true
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.activation(k)
	if a == nil {
		return false
	}
	a.count()
	r.root.Send(a.pid, msg)
	return true
}

// send counts one message on k's activation (starting one if none is live)
// and runs do with its PID, all under the lock; false after Stop.
func (r *Router) send(k entityKey, do func(pid *actor.PID)) bool {
	r.mu.RLock()
	a := r.live[k]
	if a != nil {
		a.count()
		do(a.pid)
		r.mu.RUnlock()
		return true
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if a = r.activation(k); a == nil {
		return false
	}
	a.count()
	do(a.pid)
	return true
}

// activation returns k's live activation, spawning it if needed; nil after
// Stop. Called with mu held for writing.
func (r *Router) activation(k entityKey) *activation {
	if r.closed {
		return nil
	}
	if a := r.live[k]; a != nil {
		return a
	}
	a := &activation{key: k}
	a.seen.Store(-1) // a whole idle period before its first sweep
	// Named after the identity; the "$n" suffix protoactor appends keeps the
	// name free for the next activation while a passivated one stops.
	a.pid = r.root.SpawnPrefix(r.props(a), k.kind+"/"+k.identity)
	r.live[k] = a
	return a
}

// forget drops a from the live set if it is still there (an actor that
// stopped other than by passivation).
func (r *Router) forget(a *activation) {
	r.mu.Lock()
	if r.live[a.key] == a {
		delete(r.live, a.key)
	}
	r.mu.Unlock()
}

// Stop stops every actor after it has handled what is already in its mailbox
// (each gets protoactor's 10 seconds to do so). Observations routed after
// Stop are dropped. A second Stop does nothing.
func (r *Router) Stop() { r.stopOnce.Do(r.stop) }

func (r *Router) stop() {
	if r.sweeper != nil {
		r.sweeper.stop()
	}
	r.sup.Close() // actors waiting for a restart drain too
	r.mu.Lock()
	r.closed = true
	acts := make([]*activation, 0, len(r.live))
	for _, a := range r.live {
		acts = append(acts, a)
	}
	clear(r.live)
	r.mu.Unlock()
	futures := make([]*actor.Future, len(acts))
	for i, a := range acts {
		futures[i] = r.root.PoisonFuture(a.pid)
	}
	for _, f := range futures {
		_ = f.Wait() // a timeout here means the actor was already gone
	}
	r.root.ActorSystem().EventStream.Unsubscribe(r.deadLetters)
}
