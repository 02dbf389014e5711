package cluster

import (
	"sync/atomic"

	"github.com/alertd/alertd/engine/cluster/wire"
	"google.golang.org/protobuf/proto"
)

// Message kinds this member counts as it sends them to other members
// (alertd_cluster_messages_total): what a cluster costs per event.
const (
	SentObservation = iota // an observation line to the member of its handle's grain
	SentEvent              // an event to a member whose sessions listen (or a profile change to a grain)
	SentControl            // subscribe, unsubscribe, rename, an activating grain's question
	numSent
)

// SentKinds are the label values, indexed by the constants above.
var SentKinds = [numSent]string{"observation", "event", "control"}

// sentCounts are plain atomics: one Add per message sent to another member,
// nothing on a single node (no Node) or for a grain on this member.
type sentCounts [numSent]atomic.Uint64

// count notes one message m sent to another member.
func (s *sentCounts) count(m proto.Message) {
	switch m.(type) {
	case *wire.Observe:
		s[SentObservation].Add(1)
	case *wire.Event:
		s[SentEvent].Add(1)
	default:
		s[SentControl].Add(1)
	}
}

// Sent is how many messages of each kind (SentKinds) this member has sent
// to other members since it started.
func (n *Node) Sent() (out [numSent]uint64) {
	for i := range out {
		out[i] = n.sent[i].Load()
	}
	return out
}
