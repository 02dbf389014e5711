package delivery

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/protocol"
)

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) Deliver(*Event) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func TestHubSubscribePublishUnsubscribe(t *testing.T) {
	h := NewHub()
	a, b := &counter{}, &counter{}
	h.Subscribe(HandleTopic("whale"), a)
	h.Subscribe(HandleTopic("whale"), b)
	h.Subscribe(HandleTopic("whale"), a) // twice is once
	e := &Event{Header: protocol.EventHeader{Kind: protocol.EventKindTweetDeleted, EventID: "evt_del_whale_1", Handle: "whale"}, Data: []byte(`{}`)}
	if n := h.Publish(HandleTopic("whale"), e); n != 2 {
		t.Fatalf("reached %d, want 2", n)
	}
	if h.Publish(HandleTopic("other"), e) != 0 {
		t.Fatal("published to a handle nobody watches")
	}
	h.Unsubscribe(HandleTopic("whale"), a)
	h.Publish(HandleTopic("whale"), e)
	if a.n != 1 || b.n != 2 {
		t.Fatalf("deliveries a=%d b=%d, want 1 and 2", a.n, b.n)
	}
	h.Unsubscribe(HandleTopic("whale"), b)
	if h.Topics() != 0 {
		t.Fatalf("an unwatched handle keeps its list: %d lists", h.Topics())
	}
	h.Subscribe(HandleTopic("whale"), a)
	if h.Publish(HandleTopic("whale"), e) != 1 {
		t.Fatal("resubscribe after the list was removed lost the subscriber")
	}
}

// TestHubConcurrentChurn races the last Unsubscribe of a handle against new
// Subscribes: no subscriber may end up on a list that left the hub.
func TestHubConcurrentChurn(t *testing.T) {
	h := NewHub()
	for round := 0; round < 200; round++ {
		var wg sync.WaitGroup
		subs := make([]*counter, 8)
		for i := range subs {
			subs[i] = &counter{}
			h.Subscribe(HandleTopic("x"), subs[i])
		}
		for i := range subs {
			wg.Add(2)
			go func(c *counter) { defer wg.Done(); h.Unsubscribe(HandleTopic("x"), c) }(subs[i])
			go func(c *counter) { defer wg.Done(); h.Subscribe(HandleTopic("y"), c) }(subs[i])
		}
		late := &counter{}
		wg.Add(1)
		go func() { defer wg.Done(); h.Subscribe(HandleTopic("x"), late) }()
		wg.Wait()
		if got := len(h.Subscribers(HandleTopic("x"))); got != 1 {
			t.Fatalf("round %d: %d subscribers of x, want the late one", round, got)
		}
		h.Unsubscribe(HandleTopic("x"), late)
		for _, c := range subs {
			h.Unsubscribe(HandleTopic("y"), c)
		}
		if h.Topics() != 0 {
			t.Fatalf("round %d: %d lists left", round, h.Topics())
		}
	}
}

// A full list keeps the newest perHandle events of the window, oldest
// first, however many were added.
func TestRecentKeepsNewest(t *testing.T) {
	r := NewRecent(1000, 10)
	for i := int64(1); i <= 1000; i++ {
		r.AddPost("a", &Event{DetectedAt: i})
	}
	got := r.Posts([]string{"a"}, 0)
	if len(got) != 10 {
		t.Fatalf("%d posts kept, want 10", len(got))
	}
	for i, e := range got {
		if want := int64(991 + i); e.DetectedAt != want {
			t.Fatalf("post %d detected at %d, want %d", i, e.DetectedAt, want)
		}
	}
	r.AddPost("a", &Event{DetectedAt: 2500}) // window 1000: 991..1000 are older than 1500
	if got := r.Posts([]string{"a"}, 0); len(got) != 1 || got[0].DetectedAt != 2500 {
		t.Fatalf("after a post 1500 ms later: %d kept", len(got))
	}
}

func BenchmarkRecentAddPost(b *testing.B) {
	r := NewRecent(1<<62, 500)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.AddPost("a", &Event{DetectedAt: int64(i)})
	}
}

func TestRecentSweep(t *testing.T) {
	r := NewRecent(1000, 10)
	r.AddFollow("a", &Event{DetectedAt: 100})
	r.AddPost("b", &Event{DetectedAt: 900})
	r.Sweep(1500) // window 1000: a's event (100) is gone, b's (900) stays
	if r.Len() != 1 || len(r.Posts([]string{"b"}, 0)) != 1 || len(r.Follows([]string{"a"}, 0)) != 0 {
		t.Fatalf("after sweep: %d handles", r.Len())
	}
	stop := r.StartSweeper(time.Millisecond, func() time.Time { return time.UnixMilli(5000) })
	testkit.WaitFor(t, 5*time.Second, "the sweeper swept", func() (bool, string) { return r.Len() == 0, fmt.Sprint(r.Len(), " handles") })
	stop()
	stop()
}
