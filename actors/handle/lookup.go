package handle

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Lookup is the one way to reach an entity actor (handle, user, feed):
// identity and kind in, actor out. It has the shape of protoactor's cluster
// identity lookup (cluster.Get(identity, kind), cluster.RequestFuture), so
// that the cluster can replace the local Router without touching callers.
//
// An activation may passivate whenever it is idle (see the package doc).
// Tell and RequestFuture never reach one that is passivating: they either
// count on the live activation or start a new one. A PID from Get is only
// good for requests that tolerate kit.ErrStopped (ask again through the
// lookup); a message sent straight to it is not counted, so its activation
// never passivates again.
type Lookup interface {
	// Get returns the live activation of (identity, kind), starting one if
	// none is live; nil once the lookup is stopped.
	Get(identity, kind string) *actor.PID
	// Tell sends msg to the activation of (identity, kind), starting one if
	// none is live; messages told for one identity arrive in call order.
	Tell(identity, kind string, msg any)
	// RequestFuture asks the activation of (identity, kind); the answer is
	// read with kit.Await.
	RequestFuture(identity, kind string, msg any, timeout time.Duration) *actor.Future
}

var _ Lookup = (*Router)(nil)
