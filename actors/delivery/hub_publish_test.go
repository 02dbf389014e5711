package delivery

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

func deletedEvent(h string) *Event {
	return &Event{Header: protocol.EventHeader{Kind: protocol.EventKindTweetDeleted, EventID: "evt_del_" + h + "_1", Handle: h}, Data: []byte(`{}`)}
}

// selfMover leaves the handle it gets an event of, for another, from inside
// Deliver, under its own lock: Publish must hold no hub lock meanwhile.
type selfMover struct {
	h  *Hub
	mu sync.Mutex
	n  int
}

func (s *selfMover) Deliver(e *Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.h.Unsubscribe(HandleTopic(e.Header.Handle), s)
	s.h.Subscribe(HandleTopic(e.Header.Handle+"2"), s)
}

func TestPublishDeliversWithoutHubLocks(t *testing.T) {
	h := NewHub()
	m := &selfMover{h: h}
	h.Subscribe(HandleTopic("whale"), m)
	done := make(chan int, 1)
	go func() { done <- h.Publish(HandleTopic("whale"), deletedEvent("whale")) }()
	select {
	case n := <-done:
		if n != 1 {
			t.Fatalf("reached %d, want 1", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Publish deadlocked with a subscriber that resubscribes in Deliver")
	}
	if h.Publish(HandleTopic("whale"), deletedEvent("whale")) != 0 || h.Publish(HandleTopic("whale2"), deletedEvent("whale2")) != 1 {
		t.Fatal("the move made in Deliver did not take")
	}

	// A subscriber holding its own lock while it subscribes, against a
	// publisher whose Deliver takes that lock.
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(2)
		go func() { defer wg.Done(); h.Publish(HandleTopic("whale2"), deletedEvent("whale2")) }()
		go func() {
			defer wg.Done()
			m.mu.Lock()
			h.Subscribe(HandleTopic(fmt.Sprintf("h%d", i)), m)
			m.mu.Unlock()
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock between a subscriber's lock and the hub")
	}
}

// Publishing while the set changes reaches every subscriber that was in it
// throughout, once per event.
func TestPublishDuringChurn(t *testing.T) {
	h := NewHub()
	stable := make([]*counter, 50)
	for i := range stable {
		stable[i] = &counter{}
		h.Subscribe(HandleTopic("x"), stable[i])
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			c := &counter{}
			h.Subscribe(HandleTopic("x"), c)
			h.Unsubscribe(HandleTopic("x"), c)
		}
	}()
	const events = 500
	for range events {
		h.Publish(HandleTopic("x"), deletedEvent("x"))
	}
	close(stop)
	wg.Wait()
	for i, c := range stable {
		if c.n != events {
			t.Fatalf("subscriber %d got %d events, want %d", i, c.n, events)
		}
	}
}

type nop struct{ _ [8]byte }

func (*nop) Deliver(*Event) {}

// BenchmarkPublish1000 is the hub's own cost per event for a handle with
// 1,000 subscribers (copying the set, calling Deliver), encoding excluded.
func BenchmarkPublish1000(b *testing.B) {
	h := NewHub()
	for range 1000 {
		h.Subscribe(HandleTopic("x"), &nop{})
	}
	e := deletedEvent("x")
	e.Encode()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		h.Publish(HandleTopic("x"), e)
	}
}

// BenchmarkSubscribe1000 is one subscribe and one unsubscribe on a topic
// with 1,000 subscribers (a login and a close, per handle).
func BenchmarkSubscribe1000(b *testing.B) {
	h := NewHub()
	for range 1000 {
		h.Subscribe(HandleTopic("x"), &nop{})
	}
	s := &nop{}
	b.ReportAllocs()
	for b.Loop() {
		h.Subscribe(HandleTopic("x"), s)
		h.Unsubscribe(HandleTopic("x"), s)
	}
}

// BenchmarkIdleSubscriptions is the hub's memory per subscription: 10,000
// subscribers on 100 of 1,000 topics each (the fan-out bench's shape).
func BenchmarkIdleSubscriptions(b *testing.B) {
	for b.Loop() {
		h := NewHub()
		for i := range 10000 {
			s := &nop{}
			for j := range 100 {
				h.Subscribe(HandleTopic(topicNames[(i*100+j)%1000]), s)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/build")
}

var topicNames = func() []string {
	out := make([]string, 1000)
	for i := range out {
		out[i] = fmt.Sprintf("handle%d", i)
	}
	return out
}()

// A subscriber is in a set once however often it subscribes, and a set
// that shrank gives its memory back.
func TestSubscribeOnceAndShrink(t *testing.T) {
	h := NewHub()
	subs := make([]*counter, 1000)
	for i := range subs {
		subs[i] = &counter{}
		h.Subscribe(HandleTopic("x"), subs[i])
		h.Subscribe(HandleTopic("x"), subs[i])
	}
	if n := h.Publish(HandleTopic("x"), deletedEvent("x")); n != 1000 {
		t.Fatalf("reached %d, want 1000", n)
	}
	for _, s := range subs[10:] {
		h.Unsubscribe(HandleTopic("x"), s)
	}
	if n := h.Publish(HandleTopic("x"), deletedEvent("x")); n != 10 {
		t.Fatalf("reached %d after unsubscribes, want 10", n)
	}
	for i, s := range subs {
		want := 1
		if i < 10 {
			want = 2
		}
		if s.n != want {
			t.Fatalf("subscriber %d got %d events, want %d", i, s.n, want)
		}
	}
	if c := cap(h.list(HandleTopic("x"), false).subs); c > 40 {
		t.Fatalf("capacity %d kept for 10 subscribers", c)
	}
}
