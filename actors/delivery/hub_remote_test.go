package delivery

import (
	"fmt"
	"testing"

	"github.com/alertd/alertd/protocol"
)

type fakeRemote struct {
	listened  map[Topic]bool
	published []Topic
}

func (r *fakeRemote) Listened(t Topic) bool     { return r.listened[t] }
func (r *fakeRemote) Publish(t Topic, e *Event) { r.published = append(r.published, t) }

// TestHubRemote: a cluster's product topics count the other nodes'
// sessions in Listened and spread their frames, with or without a local
// subscriber; handle topics and list changes stay on the node.
func TestHubRemote(t *testing.T) {
	t.Parallel()
	h := NewHub()
	acct := AccountTopic(protocol.ProductSA, "a")
	handle := HandleTopic("h")
	r := &fakeRemote{listened: map[Topic]bool{acct: true, handle: true}}
	h.SetRemote(r)
	if got := fmt.Sprint(h.Listened(acct), h.ListenedHere(acct), h.Listened(handle)); got != "true false false" {
		t.Fatalf("Listened, ListenedHere, Listened(handle): %s", got)
	}
	h.Publish(acct, NewFrame([]byte(`{}`), "", 0))
	h.Publish(acct, TargetAdded("x"))
	h.Publish(handle, NewFrame([]byte(`{}`), "", 0))
	if fmt.Sprint(r.published) != fmt.Sprint([]Topic{acct}) {
		t.Fatalf("spread %v, want the account topic's frame only", r.published)
	}
}
