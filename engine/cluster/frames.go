package cluster

import (
	"slices"
	"sync"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/engine/cluster/wire"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// frames spreads the product frames of this member's hub (account, wallet
// and product topics: what the product detectors publish) to the sessions
// of the other members, and counts those sessions in the hub's Listened
// (delivery.Remote). Each member tells every other one, through their
// relays, which of these topics its sessions listen to (wire.Listening:
// changes as the hub's topics come and go; the full set, asking for theirs,
// when its relay starts and whenever the membership changes); a frame goes once to each member that listens
// (wire.Frame), whose relay hands it to its sessions there. A detector thus
// publishes on the member where it runs, and every member's sockets see
// the frame, once.
//
// The chat bridge listens to the topics of accounts with a chat on every
// member (delivery.NodeLocal): those count as listened, so their frames
// cross and are dropped there; correct, at the cost of a message.
//
// mu guards remote (the other members' listened topics, by address); it is
// never held across a send.
type frames struct {
	n *Node

	mu     sync.RWMutex
	remote map[string]map[delivery.Topic]struct{}
}

var _ delivery.Remote = (*frames)(nil)

func newFrames(n *Node) *frames {
	return &frames{n: n, remote: map[string]map[delivery.Topic]struct{}{}}
}

// Listened implements delivery.Remote.
func (f *frames) Listened(t delivery.Topic) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, set := range f.remote {
		if _, ok := set[t]; ok {
			return true
		}
	}
	return false
}

// Publish implements delivery.Remote: one wire.Frame to each member whose
// sessions listen to t.
func (f *frames) Publish(t delivery.Topic, e *delivery.Event) {
	f.mu.RLock()
	var to []string
	for member, set := range f.remote {
		if _, ok := set[t]; ok {
			to = append(to, member)
		}
	}
	f.mu.RUnlock()
	if len(to) == 0 {
		return
	}
	w := &wire.Frame{Topic: topicToWire(t), Frame: e.ProductFrame(), Item: e.Item, Mask: uint32(e.Mask)}
	for _, member := range to {
		f.n.sent[SentEvent].Add(1)
		f.n.system.Root.Send(actor.NewPID(member, relayName), w)
	}
}

// heard takes another member's wire.Listening.
func (f *frames) heard(m *wire.Listening) {
	f.mu.Lock()
	defer f.mu.Unlock()
	set := f.remote[m.Member]
	if set == nil || m.Full {
		set = map[delivery.Topic]struct{}{}
		f.remote[m.Member] = set
	}
	for _, w := range m.Topics {
		t := topicFromWire(w)
		if m.Listening {
			set[t] = struct{}{}
		} else {
			delete(set, t)
		}
	}
}

// members keeps the sets of the members in addrs only (the others left
// or died: their sessions with them).
func (f *frames) members(addrs []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for m := range f.remote {
		if !slices.Contains(addrs, m) {
			delete(f.remote, m)
		}
	}
}

// tell sends m to the relay of every other member.
func (f *frames) tell(m *wire.Listening) {
	self := f.n.system.Address()
	for _, member := range f.n.Members() {
		if member != self {
			f.tellOne(member, m)
		}
	}
}

// tellOne sends m to member's relay.
func (f *frames) tellOne(member string, m *wire.Listening) {
	f.n.sent[SentControl].Add(1)
	f.n.system.Root.Send(actor.NewPID(member, relayName), m)
}

// deliver hands a frame another member published to this member's
// sessions of its topic. Not through Hub.Publish: that would spread it
// again. Subscribers that turn this member's own frames into something
// other than a socket write (delivery.NodeLocal: the chat bridge) do not
// get it; the publishing member's have.
func deliverFrame(hub *delivery.Hub, w *wire.Frame) {
	t := topicFromWire(w.Topic)
	subs := hub.Subscribers(t)
	if len(subs) == 0 {
		return
	}
	e := delivery.NewFrame(w.Frame, w.Item, uint8(w.Mask))
	for _, s := range subs {
		if _, own := s.(delivery.NodeLocal); !own {
			s.Deliver(e)
		}
	}
}

func topicToWire(t delivery.Topic) *wire.Topic {
	return &wire.Topic{Kind: uint32(t.Kind), Product: string(t.Product), Key: t.Key}
}

func topicFromWire(w *wire.Topic) delivery.Topic {
	if w == nil {
		return delivery.Topic{}
	}
	return delivery.Topic{Kind: delivery.TopicKind(w.Kind), Product: protocol.Product(w.Product), Key: w.Key}
}
