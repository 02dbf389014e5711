package delivery

import (
	"sync"
	"testing"
)

// A group's members hear its topics once per event, however often a topic
// was watched, and a member that left hears nothing more.
func TestGroupDeliversToMembers(t *testing.T) {
	h := NewHub()
	g := NewGroup(h)
	a, b := &counter{}, &counter{}
	g.Join(a)
	g.Join(b)
	g.WatchAll([]string{"x", "y", "x"})
	g.Watch("y")
	if g.Handles() != 2 || h.Topics() != 2 {
		t.Fatalf("%d handles in the group, %d topics; want 2 and 2", g.Handles(), h.Topics())
	}
	if n := h.Publish(HandleTopic("x"), deletedEvent("x")); n != 2 {
		t.Fatalf("reached %d, want the 2 members", n)
	}
	if n := len(h.Subscribers(HandleTopic("y"))); n != 2 {
		t.Fatalf("y lists %d subscribers, want the 2 members", n)
	}
	if left := g.Leave(a); left != 1 || g.Members() != 1 {
		t.Fatalf("%d members left, want 1", left)
	}
	if g.Leave(a) != 1 {
		t.Fatal("a second Leave changed the members")
	}
	h.Publish(HandleTopic("y"), deletedEvent("y"))
	if a.n != 1 || b.n != 2 {
		t.Fatalf("a got %d events, b %d; want 1 and 2", a.n, b.n)
	}
}

// Unwatch leaves one topic; Close leaves every topic and the group takes
// none afterwards; the hub keeps no list nobody is in.
func TestGroupUnwatchAndClose(t *testing.T) {
	h := NewHub()
	var came, went []Topic
	h.SetWatcher(func(tp Topic) {
		if h.Listened(tp) {
			came = append(came, tp)
		} else {
			went = append(went, tp)
		}
	})
	g := NewGroup(h)
	m := &counter{}
	g.Join(m)
	g.WatchAll([]string{"a", "b", "c"})
	other := &counter{}
	h.Subscribe(HandleTopic("b"), other) // a plain subscriber beside the group
	g.Unwatch("a")
	g.Unwatch("zzz") // never watched
	if h.Listened(HandleTopic("a")) || g.Handles() != 2 {
		t.Fatalf("a still listened (%v) or %d handles, want 2", h.Listened(HandleTopic("a")), g.Handles())
	}
	if n := h.Publish(HandleTopic("b"), deletedEvent("b")); n != 2 {
		t.Fatalf("b reached %d, want the plain subscriber and the member", n)
	}
	g.Close()
	g.Watch("d")
	g.WatchAll([]string{"e"})
	g.Renamed("b", "f")
	if g.Handles() != 0 || h.Topics() != 1 || !h.Listened(HandleTopic("b")) {
		t.Fatalf("after Close: %d handles, %d topics (want 0 and b's alone)", g.Handles(), h.Topics())
	}
	if n := h.Publish(HandleTopic("b"), deletedEvent("b")); n != 1 || m.n != 1 {
		t.Fatalf("b reached %d after Close (member got %d), want the plain subscriber only", n, m.n)
	}
	h.Unsubscribe(HandleTopic("b"), other)
	if h.Topics() != 0 || len(came) != 3 || len(went) != 3 {
		t.Fatalf("%d topics left; watcher heard %d come and %d go, want 0, 3, 3", h.Topics(), len(came), len(went))
	}
}

// A rename adds the new handle to every group on the old one (it stays on
// the old one too, like a plain Renamer).
func TestRenameMovesGroups(t *testing.T) {
	h := NewHub()
	g := NewGroup(h)
	m := &counter{}
	g.Join(m)
	g.Watch("old")
	h.Rename("old", "new")
	if g.Handles() != 2 {
		t.Fatalf("%d handles after the rename, want old and new", g.Handles())
	}
	h.Publish(HandleTopic("new"), deletedEvent("new"))
	h.Publish(HandleTopic("old"), deletedEvent("old"))
	if m.n != 2 {
		t.Fatalf("member got %d events, want 2", m.n)
	}
	g.Close()
	if h.Topics() != 0 {
		t.Fatalf("%d topics left", h.Topics())
	}
}

// Members joining and leaving while events are published: the members
// that stay throughout hear every event once.
func TestGroupMembersChurnDuringPublish(t *testing.T) {
	h := NewHub()
	g := NewGroup(h)
	g.Watch("x")
	stable := make([]*counter, 20)
	for i := range stable {
		stable[i] = &counter{}
		g.Join(stable[i])
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			c := &counter{}
			g.Join(c)
			g.Watch("y")
			g.Unwatch("y")
			g.Leave(c)
		}
	}()
	const events = 2000
	for range events {
		h.Publish(HandleTopic("x"), deletedEvent("x"))
	}
	close(stop)
	wg.Wait()
	for i, c := range stable {
		if c.n != events {
			t.Fatalf("member %d got %d events, want %d", i, c.n, events)
		}
	}
}

// BenchmarkPublishGroups1000 is BenchmarkPublish1000's 1,000 deliveries
// through 500 groups of 2 (the B2B sockets of 500 accounts, two each: the
// fan-out bench's shape).
func BenchmarkPublishGroups1000(b *testing.B) {
	h := NewHub()
	for range 500 {
		g := NewGroup(h)
		g.Join(&nop{})
		g.Join(&nop{})
		g.Watch("x")
	}
	e := deletedEvent("x")
	e.Encode()
	if n := h.Publish(HandleTopic("x"), e); n != 1000 {
		b.Fatalf("reached %d", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		h.Publish(HandleTopic("x"), e)
	}
}

// BenchmarkIdleGroups is BenchmarkIdleSubscriptions's 10,000 subscribers
// on 100 of 1,000 topics each, as 5,000 groups of 2.
func BenchmarkIdleGroups(b *testing.B) {
	for b.Loop() {
		h := NewHub()
		for i := range 5000 {
			g := NewGroup(h)
			g.Join(&nop{})
			g.Join(&nop{})
			hs := make([]string, 100)
			for j := range hs {
				hs[j] = topicNames[(i*100+j)%1000]
			}
			g.WatchAll(hs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/build")
}

// Lists removed give their ids to new ones; a group keeps its lists by id
// and still tells them apart.
func TestGroupWithReusedListIDs(t *testing.T) {
	h := NewHub()
	g := NewGroup(h)
	m := &counter{}
	g.Join(m)
	g.WatchAll([]string{"a", "b"})
	plain := &counter{}
	for round := range 5 {
		h.Subscribe(HandleTopic("c"), plain)
		h.Unsubscribe(HandleTopic("c"), plain) // c's id is free again
		g.Unwatch("c")                         // never watched: nothing happens
		g.Watch("d")                           // takes c's old id
		if g.Handles() != 3 {
			t.Fatalf("round %d: %d handles, want a, b, d", round, g.Handles())
		}
		g.Unwatch("a")
		g.Watch("a")
		g.Unwatch("d")
	}
	for _, x := range []string{"a", "b"} {
		h.Publish(HandleTopic(x), deletedEvent(x))
	}
	if m.n != 2 || h.Topics() != 2 || len(h.byID)-len(h.free) != 2 {
		t.Fatalf("member got %d events, %d topics, %d live ids; want 2, 2, 2", m.n, h.Topics(), len(h.byID)-len(h.free))
	}
	g.Close()
	if h.Topics() != 0 || len(h.free) != len(h.byID) {
		t.Fatalf("%d topics, %d of %d ids free after Close", h.Topics(), len(h.free), len(h.byID))
	}
}
