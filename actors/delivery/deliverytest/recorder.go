// Package deliverytest helps tests of publishers: a subscriber that keeps
// what the hub delivers to it.
package deliverytest

import (
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
)

// Recorder is a delivery.Subscriber that keeps every event it gets (every
// product frame its filter allows, when it has one).
type Recorder struct {
	filter *delivery.FrameFilter
	mu     sync.Mutex
	events []*delivery.Event
	more   chan struct{}
}

// Subscribe returns a recorder subscribed to topics of hub, unsubscribed
// when the test ends.
func Subscribe(t testing.TB, hub *delivery.Hub, topics ...delivery.Topic) *Recorder {
	return subscribe(t, hub, nil, topics)
}

// Socket is a recorder that keeps what a product socket with filter f
// would send: it stands for a product session.
func Socket(t testing.TB, hub *delivery.Hub, f delivery.FrameFilter, topics ...delivery.Topic) *Recorder {
	return subscribe(t, hub, &f, topics)
}

func subscribe(t testing.TB, hub *delivery.Hub, f *delivery.FrameFilter, topics []delivery.Topic) *Recorder {
	r := &Recorder{filter: f, more: make(chan struct{}, 1)}
	for _, tp := range topics {
		hub.Subscribe(tp, r)
	}
	t.Cleanup(func() {
		for _, tp := range topics {
			hub.Unsubscribe(tp, r)
		}
	})
	return r
}

// Deliver implements delivery.Subscriber.
func (r *Recorder) Deliver(e *delivery.Event) {
	if r.filter != nil && !r.filter.Allows(e) {
		return
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// Events returns what the recorder got so far.
func (r *Recorder) Events() []*delivery.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*delivery.Event(nil), r.events...)
}

// Frames returns the product frames the recorder got so far, as strings.
func (r *Recorder) Frames() []string {
	var out []string
	for _, e := range r.Events() {
		out = append(out, string(e.ProductFrame()))
	}
	return out
}

// Wait waits until the recorder holds at least n events (5 s at most) and
// returns them.
func (r *Recorder) Wait(t testing.TB, n int) []*delivery.Event {
	t.Helper()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for {
		if evs := r.Events(); len(evs) >= n {
			return evs
		}
		select {
		case <-r.more:
		case <-deadline.C:
			t.Fatalf("%d events, want %d", len(r.Events()), n)
		}
	}
}

// WaitFrames is Wait returning the product frames.
func (r *Recorder) WaitFrames(t testing.TB, n int) []string {
	t.Helper()
	r.Wait(t, n)
	return r.Frames()
}
