package handle

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Placement puts the handle actors (KindHandle) somewhere other than this
// router: a cluster places them as grains on its members (engine/cluster).
// With one, the router hands every message for a handle actor to it and
// spawns only user and feed actors itself; without one (a single node)
// nothing changes. Handle actors placed elsewhere are not in the router's
// backlog and passivate as their placement decides.
type Placement interface {
	// Get returns the handle actor of identity, activating it if needed;
	// nil when it cannot be reached.
	Get(identity string) *actor.PID
	// Tell sends msg to the handle actor of identity; messages told for one
	// identity from one goroutine arrive in call order.
	Tell(identity string, msg any)
	// RequestFuture asks the handle actor of identity.
	RequestFuture(identity string, msg any, timeout time.Duration) *actor.Future
}

// WithPlacement hands the handle actors to p (see Placement).
func WithPlacement(p Placement) Option { return func(r *Router) { r.place = p } }

// NewGrain is the handle actor of identity as a grain of r's placement: it
// shares r's Deps and reaches other entity actors through r, but r neither
// counts its messages nor passivates it.
func (r *Router) NewGrain(identity string) actor.Actor {
	return newHandleActor(identity, r.deps, entity{r: r})
}
