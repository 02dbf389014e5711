package delivery

import (
	"slices"
	"testing"
)

type nopSub struct{}

func (*nopSub) Deliver(*Event) {}

// TestHubWatcher: the watcher hears a topic's first subscriber and its
// last leaving, and nothing in between; Listened is the truth it reads.
func TestHubWatcher(t *testing.T) {
	h := NewHub()
	var heard []string
	h.SetWatcher(func(tp Topic) {
		state := "gone"
		if h.Listened(tp) {
			state = "listened"
		}
		heard = append(heard, tp.Key+" "+state)
	})
	a, b := &nopSub{}, &nopSub{}
	h.Subscribe(HandleTopic("whale"), a)
	h.Subscribe(HandleTopic("whale"), b)
	h.Subscribe(HandleTopic("whale"), a)
	h.Unsubscribe(HandleTopic("whale"), a)
	h.Unsubscribe(HandleTopic("orca"), a) // never listened: nothing to hear
	h.Unsubscribe(HandleTopic("whale"), b)
	if want := []string{"whale listened", "whale gone"}; !slices.Equal(heard, want) {
		t.Fatalf("watcher heard %q, want %q", heard, want)
	}
}
