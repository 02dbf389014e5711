package handle

import (
	"log/slog"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Deps are what handle and feed actors share.
type Deps struct {
	Dir     *directory.Directory
	Writer  *writer.Writer
	Log     *slog.Logger
	Timings protocol.Timings
	// Hub and Recent carry events to sessions; nil disables publishing.
	Hub    *delivery.Hub
	Recent *delivery.Recent
	// Trace keeps non-tweet events for the trace endpoint; nil disables it.
	Trace TraceSink
	// Resolver fills in pending B2B targets when their user appears; nil
	// disables it.
	Resolver Resolver
	// Taps are the features' hooks (nil: none).
	Taps *Taps

	done func() // set by the Router: one observation handled
}

// handled tells the router that an observation is done.
func (d *Deps) handled() {
	if d.done != nil {
		d.done()
	}
}

// Resolver resolves pending targets of a handle to a platform user. It
// only tells: it never waits for the store (targets.Registry).
type Resolver interface {
	Resolve(handle, socialID, displayName string)
}

// TraceSink keeps trace records of non-tweet events.
type TraceSink interface {
	Trace(handle string, e *delivery.Event)
}

// Props returns the props of the actor that owns routing key key.
func Props(key string, d *Deps) *actor.Props {
	if IsUserKey(key) {
		return actor.PropsFromProducer(func() actor.Actor { return newUserActor(key[len(userPrefix):], d) })
	}
	if IsHandleKey(key) {
		return actor.PropsFromProducer(func() actor.Actor { return newHandleActor(key[len(handlePrefix):], d) })
	}
	return actor.PropsFromProducer(func() actor.Actor { return newFeedActor(key, d) })
}
