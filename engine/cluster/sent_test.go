package cluster

import (
	"testing"

	"github.com/alertd/alertd/engine/cluster/wire"
	"google.golang.org/protobuf/proto"
)

// TestSentCounts: each wire message counts under its kind, and Sent reads
// what was counted.
func TestSentCounts(t *testing.T) {
	t.Parallel()
	n := &Node{}
	for _, m := range []proto.Message{&wire.Observe{}, &wire.Observe{}, &wire.Event{}, &wire.Subscribe{}, &wire.Unsubscribe{}, &wire.Renamed{}} {
		n.sent.count(m)
	}
	if got, want := n.Sent(), [numSent]uint64{2, 1, 3}; got != want {
		t.Fatalf("Sent() = %v, want %v (%v)", got, want, SentKinds)
	}
}
