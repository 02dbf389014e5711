package handle

import (
	"log/slog"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Deps are what the handle, user and feed actors share.
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
	// Subs are the products that hear the actors' changes (nil: none).
	Subs *Subscriptions
	// Loader reloads a handle actor's state when it starts (nil: it starts
	// empty, as in tests without a store).
	Loader Loader
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

// props are those of activation a: its producer builds a NEW actor on
// activation and on every restart (never a captured instance), supervised
// by the router's Supervisor as protoactor guardian strategy.
func (r *Router) props(a *activation) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		e := entity{r: r, act: a}
		switch a.key.kind {
		case KindHandle:
			return newHandleActor(a.key.identity, r.deps, e)
		case KindUser:
			return newUserActor(a.key.identity, r.deps, e)
		default:
			return newFeedActor(a.key.identity, r.deps, e)
		}
	}, actor.WithGuardian(r.sup))
}
