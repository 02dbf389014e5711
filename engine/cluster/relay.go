package cluster

import (
	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/engine/cluster/wire"
	"github.com/asynkron/protoactor-go/actor"
)

// topicChanged: the hub's topic of handle got its first or lost its last
// subscriber on this member.
type topicChanged struct{ handle string }

// resubscribe: the topology changed; grains may have moved, and members
// came or went (they learn this member's product topics again).
type resubscribe struct{}

// productTopicChanged: the hub's product topic t (account, wallet,
// product) got its first or lost its last subscriber on this member.
type productTopicChanged struct{ t delivery.Topic }

// subscribed: a grain learnt from the relay that this member listens to
// handle (wire.Interest), so leaving it needs an Unsubscribe.
type subscribed struct{ handle string }

// reroute: a message for a grain found it gone (it moved); the subscriber
// sends it to the grain's new place.
type reroute struct {
	handle string
	msg    any
	hops   uint32
}

// relayName is the relay's actor name on every member: grains reach the
// relays of other members by it.
const relayName = "cluster-relay"

// maxHops bounds the resends of one message to a grain that keeps moving.
const maxHops = 3

// relay is this member's end of the handle grains: it keeps the member
// subscribed to the grain of every handle its sessions listen to, and fans
// the events the grains send out to this member's sessions. Asking the
// identity lookup for a grain can take a round trip, so subscribing runs
// on a child (subscriber) and the events never wait behind it.
type relay struct {
	n   *Node
	sub *actor.PID
	// listened are the product topics this member's sessions listen to,
	// as told to the other members (frames).
	listened map[delivery.Topic]struct{}
}

func newRelay(n *Node) *relay { return &relay{n: n, listened: map[delivery.Topic]struct{}{}} }

func (r *relay) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		self := c.Self()
		r.sub = c.Spawn(actor.PropsFromProducer(func() actor.Actor {
			return &subscriber{n: r.n, relay: self, handles: map[string]bool{}}
		}))
		r.n.frames.tell(r.full(true)) // a member that starts tells the others, and asks
	case *resubscribe:
		c.Send(r.sub, m)
		r.n.frames.tell(r.full(true))
	case *topicChanged, *reroute:
		c.Send(r.sub, m)
	case *productTopicChanged:
		r.productTopic(m.t)
	case *wire.Listening:
		r.n.frames.heard(m)
		if m.Ask {
			r.n.frames.tellOne(m.Member, r.full(false))
		}
	case *wire.Frame:
		deliverFrame(r.n.hub, m)
	case *wire.Interest:
		listening := r.n.hub.Listened(delivery.HandleTopic(m.Handle))
		r.n.sent[SentControl].Add(1)
		c.Respond(&wire.InterestReply{Listening: listening})
		if listening {
			c.Send(r.sub, &subscribed{handle: m.Handle})
		}
	case *wire.Event:
		r.deliver(m)
	}
}

// productTopic tells the other members that this member's sessions now
// listen to t, or no longer do, when that changed. Read on the relay's one
// goroutine, so the last message sent says the truth.
func (r *relay) productTopic(t delivery.Topic) {
	now := r.n.hub.ListenedHere(t)
	if _, was := r.listened[t]; was == now {
		return
	}
	if now {
		r.listened[t] = struct{}{}
	} else {
		delete(r.listened, t)
	}
	r.n.frames.tell(&wire.Listening{Member: r.n.system.Address(), Listening: now, Topics: []*wire.Topic{topicToWire(t)}})
}

// full is the wire.Listening of every product topic this member's sessions
// listen to; ask asks for the receivers' in return.
func (r *relay) full(ask bool) *wire.Listening {
	m := &wire.Listening{Member: r.n.system.Address(), Full: true, Listening: true, Ask: ask}
	for t := range r.listened {
		m.Topics = append(m.Topics, topicToWire(t))
	}
	return m
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
	case *subscribed:
		s.handles[m.handle] = true
	case *reroute:
		s.n.forget(m.handle)
		s.n.tell(m.handle, m.msg, m.hops)
	}
}
