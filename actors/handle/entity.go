package handle

import (
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// entity is what every entity actor (handle, user, feed) shares: its place
// in the router's lifecycle. An actor embeds it and starts its Receive with
//
//	defer kit.CapturePanic()
//	if lc, started := a.lifecycle(c); lc { ...; return }
//	defer a.release()
//
// so that every message told through the router is released even when its
// handling panics.
//
// A cluster grain (NewGrain) has no activation: the cluster places and
// stops it, and its observations are not in this router's backlog.
type entity struct {
	r   *Router
	act *activation // nil for a grain
}

// lifecycle handles protoactor's lifecycle messages: lifecycle reports
// whether the message was one, started whether it was *actor.Started (on
// activation and after every restart, before any other message).
func (e entity) lifecycle(c actor.Context) (lifecycle, started bool) {
	switch c.Message().(type) {
	case *actor.Started:
		return true, true
	case *actor.Stopped:
		if e.act != nil {
			e.r.forget(e.act)
		}
	case *actor.Stopping, *actor.Restarting:
	default:
		return false, false
	}
	return true, false
}

// release marks one message told or asked through the router as handled.
func (e entity) release() {
	if e.act != nil {
		e.act.handled.Add(1)
	}
}

// observed releases one routed observation from the ingest backlog.
func (e entity) observed(o *protocol.Observation) {
	if e.act != nil {
		e.r.backlog.Add(-1)
		e.r.backlogBytes.Add(-int64(len(o.Raw)))
	}
}
