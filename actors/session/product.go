package session

import (
	"sync/atomic"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
)

// Scope is what a product socket hears, fixed at connect (spec 3: a client
// reconnects after changing its targets).
type Scope struct {
	// Topics are the hub topics the socket subscribes to.
	Topics []delivery.Topic
	// Items and Masks narrow the frames of the topics (see
	// delivery.NewFrameFilter): the cw handles or et posts the socket was
	// opened for, the PumpFun alert types watched per wallet.
	Items []string
	Masks map[string]uint8
	// Replay are frames the socket sends right after the 101, before what
	// is published after it (Community Watch's held one-time syncs).
	Replay []*delivery.Event
}

// Product is one session of a product socket of spec 3 (/v1/cw/ws,
// /v1/ct/ws, /v1/et/ws, /v1/trending/ws, /v1/pf/ws, /v1/eca/ws, /v1/sa/ws):
// authenticated with ?api_key= before the upgrade, it forwards the frames of
// its scope and says nothing else. It subscribes in Prepare, before the 101
// goes out, so every event published after the client received the 101
// reaches it.
type Product struct {
	d       *Deps
	conn    Conn
	product protocol.Product
	account string
	key     string
	topics  []delivery.Topic
	replay  []*delivery.Event
	filter  delivery.FrameFilter
	slot    *Slot
	closed  atomic.Bool
	end     ending   // callbacks only
	watch   keyWatch // callbacks only
}

// NewProduct makes the session of a socket of product p about to be
// upgraded, opened with key by acct, holding a reserved slot of its
// ProductQuota.
func NewProduct(d *Deps, p protocol.Product, key, acct string, sc Scope, slot *Slot) *Product {
	return &Product{d: d, product: p, account: acct, key: key, topics: sc.Topics, replay: sc.Replay,
		filter: delivery.NewFrameFilter(sc.Items, sc.Masks), slot: slot}
}

// Prepare subscribes to the scope's topics: frames published from now on
// queue behind the 101.
// Kind implements Socket.
func (s *Product) Kind() SocketKind { return KindProduct }

// Prepare implements Socket: the replay queues first, then what is
// published from now on.
func (s *Product) Prepare(c Conn) {
	s.conn = c
	for _, e := range s.replay {
		c.SendEvent(e.ProductFrame(), e.IngestedAt)
	}
	s.replay = nil
	for _, t := range s.topics {
		s.d.Hub.Subscribe(t, s)
	}
}

// Open confirms the slot and starts the re-checks.
func (s *Product) Open() {
	s.slot.Confirm()
	s.end.opening(s.d, KindProduct)
	s.watch.every(s.conn, s.d.Timings.HeartbeatInterval, s.recheck)
	s.recheck()
}

// recheck closes the socket once its key or subscription no longer stands.
func (s *Product) recheck() bool {
	if s.closed.Load() {
		return false
	}
	_, ok := s.watch.check(s.d, s.conn, &s.end, s.key, nil, "", s.product, func() { s.recheck() })
	return ok
}

// Message implements Socket: clients have nothing to say.
func (s *Product) Message(bool, []byte) {}

// Deliver implements delivery.Subscriber: the frames of the scope.
func (s *Product) Deliver(e *delivery.Event) {
	if s.filter.Allows(e) && !s.closed.Load() {
		s.conn.SendEvent(e.ProductFrame(), e.IngestedAt)
	}
}

// Closed implements Socket.
func (s *Product) Closed(transport CloseReason) {
	if s.release() {
		s.end.record(s.d, KindProduct, transport, s.account)
	}
}

// Aborted implements Socket.
func (s *Product) Aborted() { s.release() }

func (s *Product) release() bool {
	if s.closed.Swap(true) {
		return false
	}
	s.watch.stop()
	for _, t := range s.topics {
		s.d.Hub.Unsubscribe(t, s)
	}
	s.slot.Release()
	return true
}
