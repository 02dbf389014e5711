package cluster

import (
	"slices"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/engine/cluster/wire"
	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	json "github.com/goccy/go-json"
)

// grain is a handle actor as a cluster grain: the handle actor itself
// (handle.Router.NewGrain) inside, plus the members whose sessions listen
// to the handle. It subscribes to its handle's topic on this member's hub,
// so it sees every event published for the handle here (the handle
// actor's, and profile changes from this member's user actors), and sends
// each once to every listening member's relay, encoded.
//
// mu guards nodes: Deliver runs on the publisher's goroutine (this grain's
// for its own events, a user actor's for profile changes).
type grain struct {
	n        *Node
	identity string
	inner    actor.Actor

	mu    sync.Mutex
	nodes []*actor.PID
}

func newGrain(n *Node) *grain { return &grain{n: n} }

// withMessage is the grain's context with the message the inner actor
// should see (a wire message decoded).
type withMessage struct {
	actor.Context
	msg any
}

func (c withMessage) Message() any { return c.msg }

// local is a message for a grain on this member, as the placement sends it
// (not serialised). Its own type keeps it apart from messages told to the
// router's own actors, whose dead letters the router counts.
type local struct {
	handle string
	msg    any
	hops   uint32 // resends after the grain was found gone (see reroute)
}

// interestWait bounds how long an activating grain waits for a member's
// relay to say whether it listens.
const interestWait = 2 * time.Second

func (g *grain) Receive(c actor.Context) {
	msg := c.Message()
	if l, ok := msg.(*local); ok {
		msg = l.msg
		c = withMessage{c, msg}
	}
	if _, started := msg.(*actor.Started); !started && g.inner == nil {
		return // stopped before the node was attached
	}
	switch m := msg.(type) {
	case *actor.Started:
		g.identity = cluster.GetClusterIdentity(c).Identity
		select {
		case <-g.n.ready:
		case <-g.n.done:
			c.Stop(c.Self())
			return
		}
		g.inner = g.n.router.NewGrain(g.identity)
		g.n.hub.Subscribe(delivery.HandleTopic(g.identity), g)
		g.gatherListeners(c)
		g.inner.Receive(c)
	case *actor.Stopped, *actor.Restarting:
		g.n.hub.Unsubscribe(delivery.HandleTopic(g.identity), g)
		g.inner.Receive(c)
	case *cluster.ClusterInit:
	case *wire.Observe:
		o, err := protocol.DecodeObservation(m.Line, m.DetectedAt)
		if err != nil { // validated where it was ingested: a version skew
			g.n.log.Error("cluster: observation from another member refused", "handle", g.identity, "err", err)
			return
		}
		o.IngestedAt = latency.Now() // stamps mean nothing across processes
		g.inner.Receive(withMessage{c, &handle.Observe{Obs: o}})
	case *handle.Publish: // a profile change from a user actor of this member
		g.n.hub.Publish(delivery.HandleTopic(g.identity), m.Event)
	case *wire.Event: // one from a user actor of another member
		g.n.hub.Publish(delivery.HandleTopic(g.identity), decode(m, g.n.cats(g.identity)))
	case *wire.Renamed:
		g.inner.Receive(withMessage{c, &handle.RenamedTo{Handle: m.Handle}})
	case *wire.Subscribe:
		g.listen(m.Relay)
	case *wire.Unsubscribe:
		g.mu.Lock()
		g.nodes = slices.DeleteFunc(g.nodes, func(p *actor.PID) bool { return p.Equal(m.Relay) })
		g.mu.Unlock()
	default:
		g.inner.Receive(c)
	}
}

// listen adds the relay of another member to the grain's listeners.
func (g *grain) listen(relay *actor.PID) {
	if relay == nil || relay.Address == g.n.system.Address() {
		return // this member's sessions hear the hub directly
	}
	g.mu.Lock()
	if !slices.ContainsFunc(g.nodes, func(p *actor.PID) bool { return p.Equal(relay) }) {
		g.nodes = append(g.nodes, relay)
	}
	g.mu.Unlock()
}

// gatherListeners asks every other member's relay, as the grain activates,
// whether its sessions listen to the handle: a grain that moved or
// restarted starts with the listeners its previous activation had, before
// it handles its first observation. One round trip per member, all at once.
func (g *grain) gatherListeners(c actor.Context) {
	self := g.n.system.Address()
	var relays []*actor.PID
	var asks []*actor.Future
	for _, m := range g.n.Members() {
		if m == self {
			continue
		}
		pid := actor.NewPID(m, relayName)
		relays = append(relays, pid)
		g.n.sent[SentControl].Add(1)
		asks = append(asks, c.RequestFuture(pid, &wire.Interest{Handle: g.identity}, interestWait))
	}
	for i, f := range asks {
		if r, err := f.Result(); err == nil {
			if ir, ok := r.(*wire.InterestReply); ok && ir.Listening {
				g.listen(relays[i])
			}
		} else {
			g.n.log.Warn("cluster: a member did not say whether it listens to a handle", "handle", g.identity, "member", relays[i].Address, "err", err)
		}
	}
}

// Deliver implements delivery.Subscriber: one message per listening member.
func (g *grain) Deliver(e *delivery.Event) {
	if e.Kind != delivery.KindHandle {
		return
	}
	g.mu.Lock()
	if len(g.nodes) == 0 {
		g.mu.Unlock()
		return
	}
	nodes := slices.Clone(g.nodes)
	g.mu.Unlock()
	w := g.encode(e)
	g.n.sent[SentEvent].Add(uint64(len(nodes)))
	for _, pid := range nodes {
		g.n.system.Root.Send(pid, w)
	}
}

// encode is e as the relays of other members rebuild it.
func (g *grain) encode(e *delivery.Event) *wire.Event { return encodeEvent(e, g.n.timing.XGMaxPostAge) }

// encodeEvent is e, encoded (Event.Encode), for the wire. Tweet Alerts'
// alert frame is decided here (posts younger than alertAge), once, as a
// session of this member would.
func encodeEvent(e *delivery.Event, alertAge time.Duration) *wire.Event {
	e.AlertFrame(time.Now, alertAge)
	x := e.Encoded()
	w := &wire.Event{Handle: e.Header.Handle, EventKind: uint32(e.Meta.Kind), EventType: uint32(e.Meta.Type),
		HasCa: e.Meta.HasCA, HasTicker: e.Meta.HasTicker, EventId: e.Header.EventID, EventTime: e.Header.EventTime,
		TaskId: e.Header.TaskID, UpdateForOcrOnly: e.UpdateForOCROnly, CreatedAt: e.CreatedAt, DetectedAt: e.DetectedAt,
		Late: e.Late, Frames: x.Frames[:], TweetOnly: x.TweetOnly, Alert: x.Alert, AlertDone: x.AlertDone}
	if e.Tweet != nil {
		if b, err := json.Marshal(e.Tweet); err == nil {
			w.Tweet = b
		}
	}
	return w
}

// decode rebuilds an event of another member for this member's sessions.
func decode(w *wire.Event, cats protocol.CategorySet) *delivery.Event {
	e := &delivery.Event{Kind: delivery.KindHandle,
		Meta: protocol.EventMeta{Kind: protocol.EventKind(w.EventKind), Type: protocol.EventType(w.EventType),
			HasCA: w.HasCa, HasTicker: w.HasTicker, Categories: cats},
		Header: protocol.EventHeader{Kind: protocol.EventKind(w.EventKind), EventID: w.EventId, EventTime: w.EventTime,
			Handle: w.Handle, TaskID: w.TaskId},
		UpdateForOCROnly: w.UpdateForOcrOnly, CreatedAt: w.CreatedAt, DetectedAt: w.DetectedAt, Late: w.Late}
	if len(w.Tweet) > 0 {
		t := new(protocol.Tweet)
		if json.Unmarshal(w.Tweet, t) == nil {
			e.Tweet = t
		}
	}
	var x delivery.Encoded
	for i, f := range w.Frames {
		if i < len(x.Frames) && len(f) > 0 {
			x.Frames[i] = f
		}
	}
	x.TweetOnly, x.AlertDone = nilIfEmpty(w.TweetOnly), w.AlertDone
	x.Alert = nilIfEmpty(w.Alert)
	e.SetEncoded(x)
	return e
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
