package cluster

import (
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/engine/cluster/wire"
	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/protobuf/proto"
)

var _ handle.Placement = (*Node)(nil)

// Get implements handle.Placement: the grain's PID from the cache, or from
// the identity lookup (a request to the owning member, so never called
// with a lock held or on the WebSocket loop).
func (n *Node) Get(identity string) *actor.PID {
	n.pidsMu.RLock()
	pid := n.pids[identity]
	n.pidsMu.RUnlock()
	if pid != nil {
		return pid
	}
	if pid = n.cl.Get(identity, handle.KindHandle); pid == nil {
		return nil
	}
	n.pidsMu.Lock()
	n.pids[identity] = pid
	n.pidsMu.Unlock()
	return pid
}

// Tell implements handle.Placement. A message for a grain on another
// member travels as its wire form; one that has none (a rename's state
// hand-over) is dropped with a log line: that member reloads the state
// from the store instead.
func (n *Node) Tell(identity string, msg any) { n.tell(identity, msg, 0) }

func (n *Node) tell(identity string, msg any, hops uint32) {
	pid := n.Get(identity)
	if pid == nil {
		n.log.Error("cluster: handle grain unreachable; message dropped", "handle", identity)
		return
	}
	if n.local(pid) {
		n.system.Root.Send(pid, &local{handle: identity, msg: msg, hops: hops})
		return
	}
	w := n.toWire(msg)
	if w == nil {
		n.log.Warn("cluster: message has no wire form; not sent to the member of its handle", "handle", identity, "member", pid.Address)
		return
	}
	if o, ok := w.(*wire.Observe); ok && hops > 0 {
		w = &wire.Observe{Line: o.Line, DetectedAt: o.DetectedAt, Handle: o.Handle, Hops: hops}
	}
	n.sent.count(w)
	n.system.Root.Send(pid, w)
}

// forget drops the cached PID of identity's grain.
func (n *Node) forget(identity string) {
	n.pidsMu.Lock()
	delete(n.pids, identity)
	n.pidsMu.Unlock()
}

// onDeadLetter sends an observation whose grain was gone (it moved, or was
// stopped as it moved) on to the grain's new place, through the relay: the
// identity lookup may take a round trip, and dead letters are published
// on the sender's goroutine (a remote endpoint reader's, among others).
func (n *Node) onDeadLetter(dl *actor.DeadLetterEvent) {
	var r *reroute
	switch m := dl.Message.(type) {
	case *local:
		r = &reroute{handle: m.handle, msg: m.msg, hops: m.hops + 1}
	case *wire.Observe:
		r = &reroute{handle: m.Handle, msg: m, hops: m.Hops + 1}
	default:
		return
	}
	if r.hops > maxHops {
		n.log.Error("cluster: message for a handle grain lost: its grain kept moving", "handle", r.handle)
		return
	}
	select {
	case <-n.ready:
		n.system.Root.Send(n.relay, r)
	default:
	}
}

// RequestFuture implements handle.Placement. Only grains on this member
// answer queries so far (a query's answer has no wire form yet); for
// others the future fails at once, as for a stopped actor.
func (n *Node) RequestFuture(identity string, msg any, timeout time.Duration) *actor.Future {
	if pid := n.Get(identity); pid != nil && n.local(pid) {
		return n.system.Root.RequestFuture(pid, msg, timeout)
	}
	f := actor.NewFuture(n.system, timeout)
	n.system.Root.Send(f.PID(), &actor.DeadLetterResponse{})
	return f
}

func (n *Node) local(pid *actor.PID) bool { return pid.Address == n.system.Address() }

// toWire is the message a grain on another member understands, or nil.
func (n *Node) toWire(msg any) proto.Message {
	switch m := msg.(type) {
	case *handle.Publish:
		return encodeEvent(m.Event, n.timing.XGMaxPostAge)
	case *wire.Observe:
		return m
	case *handle.Observe:
		return &wire.Observe{Line: m.Obs.Raw, DetectedAt: m.Obs.DetectedAt, Handle: m.Obs.Key}
	case *handle.RenamedTo:
		return &wire.Renamed{Handle: m.Handle}
	case proto.Message:
		return m
	}
	return nil
}
