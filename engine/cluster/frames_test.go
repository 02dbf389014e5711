package cluster

import (
	"fmt"
	"testing"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/delivery/deliverytest"
	"github.com/alertd/alertd/engine/cluster/wire"
	"github.com/alertd/alertd/protocol"
)

// What the other members listen to: changes add and remove, a full set
// replaces, a member that left is forgotten, and the first word of a
// member asks for an answer.
func TestFramesListened(t *testing.T) {
	t.Parallel()
	f := newFrames(nil)
	sa := delivery.AccountTopic(protocol.ProductSA, "acct")
	w := delivery.WalletTopic("W")
	tr := delivery.ProductTopic(protocol.ProductTrending)
	listening := func(member string, full, on bool, ts ...delivery.Topic) *wire.Listening {
		m := &wire.Listening{Member: member, Full: full, Listening: on}
		for _, t := range ts {
			m.Topics = append(m.Topics, topicToWire(t))
		}
		return m
	}
	state := func() string { return fmt.Sprint(f.Listened(sa), f.Listened(w), f.Listened(tr)) }
	f.heard(listening("b:1", true, true, sa))
	f.heard(listening("b:1", false, true, w))
	f.heard(listening("c:1", false, true, tr))
	if got := state(); got != "true true true" {
		t.Fatalf("after adds: %s", got)
	}
	f.heard(listening("b:1", false, false, sa))
	if got := state(); got != "false true true" {
		t.Fatalf("after a remove: %s", got)
	}
	f.heard(listening("b:1", true, true, sa))
	if got := state(); got != "true false true" {
		t.Fatalf("after a full set: %s", got)
	}
	f.members([]string{"b:1", "a:1"})
	if got := state(); got != "true false false" {
		t.Fatalf("after c left: %s", got)
	}
}

// A frame of another member reaches this member's sessions of its topic,
// with its item and mask, and not the subscribers that turn this member's
// own frames into chat messages.
func TestDeliverFrame(t *testing.T) {
	t.Parallel()
	hub := delivery.NewHub()
	topic := delivery.WalletTopic("W")
	socket := deliverytest.Subscribe(t, hub, topic)
	bridge := &nodeLocal{}
	hub.Subscribe(topic, bridge)
	defer hub.Unsubscribe(topic, bridge)
	deliverFrame(hub, &wire.Frame{Topic: topicToWire(topic), Frame: []byte(`{"type":"x"}`), Item: "it", Mask: 4})
	deliverFrame(hub, &wire.Frame{Topic: topicToWire(delivery.WalletTopic("other")), Frame: []byte(`{}`)})
	evs := socket.Events()
	if len(evs) != 1 || string(evs[0].ProductFrame()) != `{"type":"x"}` || evs[0].Item != "it" || evs[0].Mask != 4 {
		t.Fatalf("socket got %+v", evs)
	}
	if bridge.n != 0 {
		t.Fatalf("the chat bridge got %d frames of another member", bridge.n)
	}
}

type nodeLocal struct{ n int }

func (s *nodeLocal) Deliver(*delivery.Event) { s.n++ }
func (s *nodeLocal) NodeLocal()              {}
