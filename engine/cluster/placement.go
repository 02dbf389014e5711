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
func (n *Node) Tell(identity string, msg any) {
	pid := n.Get(identity)
	if pid == nil {
		n.log.Error("cluster: handle grain unreachable; message dropped", "handle", identity)
		return
	}
	if n.local(pid) {
		n.system.Root.Send(pid, msg)
		return
	}
	w := toWire(msg)
	if w == nil {
		n.log.Warn("cluster: message has no wire form; not sent to the member of its handle", "handle", identity, "member", pid.Address)
		return
	}
	n.system.Root.Send(pid, w)
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
func toWire(msg any) proto.Message {
	switch m := msg.(type) {
	case *handle.Observe:
		return &wire.Observe{Line: m.Obs.Raw, DetectedAt: m.Obs.DetectedAt}
	case *handle.RenamedTo:
		return &wire.Renamed{Handle: m.Handle}
	case proto.Message:
		return m
	}
	return nil
}
