package cluster

import (
	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/engine/cluster/wire"
	"github.com/asynkron/protoactor-go/actor"
)

// topicChanged: the hub's topic of handle got its first or lost its last
// subscriber on this member.
type topicChanged struct{ handle string }

// resubscribe: the topology changed; grains may have moved.
type resubscribe struct{}

// relay is this member's end of the handle grains: it keeps the member
// subscribed to the grain of every handle its sessions listen to, and fans
// the events the grains send out to this member's sessions. Asking the
// identity lookup for a grain can take a round trip, so subscribing runs
// on a child (subscriber) and the events never wait behind it.
type relay struct {
	n   *Node
	sub *actor.PID
}

func newRelay(n *Node) *relay { return &relay{n: n} }

func (r *relay) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		self := c.Self()
		r.sub = c.Spawn(actor.PropsFromProducer(func() actor.Actor {
			return &subscriber{n: r.n, relay: self, handles: map[string]bool{}}
		}))
	case *topicChanged, *resubscribe:
		c.Send(r.sub, m)
	case *wire.Event:
		r.deliver(m)
	}
}

// deliver hands an event of another member's grain to this member's
// sessions of its handle. Not through Hub.Publish: a grain of this member
// that is moving away may still listen to the topic, and must not send
// the event on again.
func (r *relay) deliver(w *wire.Event) {
	subs := r.n.hub.Subscribers(delivery.HandleTopic(w.Handle))
	if len(subs) == 0 {
		return
	}
	e := decode(w, r.n.cats(w.Handle))
	for _, s := range subs {
		if _, isGrain := s.(*grain); !isGrain {
			s.Deliver(e)
		}
	}
}

// subscriber keeps handles, the handles this member asked their grain for,
// in step with the hub's topics.
type subscriber struct {
	n       *Node
	relay   *actor.PID
	handles map[string]bool
}

func (s *subscriber) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *topicChanged:
		listened := s.n.hub.Listened(delivery.HandleTopic(m.handle))
		switch {
		case listened && !s.handles[m.handle]:
			s.handles[m.handle] = true
			s.n.Tell(m.handle, &wire.Subscribe{Relay: s.relay})
		case !listened && s.handles[m.handle]:
			delete(s.handles, m.handle)
			s.n.Tell(m.handle, &wire.Unsubscribe{Relay: s.relay})
		}
	case *resubscribe:
		for h := range s.handles {
			s.n.Tell(h, &wire.Subscribe{Relay: s.relay})
		}
	}
}
