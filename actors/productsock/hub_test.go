package productsock

import (
	"sync"
	"testing"
)

type fakeConn struct {
	mu     sync.Mutex
	frames []string
	dead   bool
}

func (c *fakeConn) Send(f []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return false
	}
	c.frames = append(c.frames, string(f))
	return true
}

func (c *fakeConn) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.frames...)
}

func TestPublishMatchesAccountAndItems(t *testing.T) {
	h := NewHub(2)
	all, some, other := &fakeConn{}, &fakeConn{}, &fakeConn{}
	if _, ok := h.Add("a", all, nil); !ok {
		t.Fatal("add all")
	}
	sSome, ok := h.Add("a", some, []string{"x"})
	if !ok {
		t.Fatal("add some")
	}
	if _, ok := h.Add("a", &fakeConn{}, nil); ok {
		t.Fatal("a third socket of account a was accepted over the limit of 2")
	}
	if _, ok := h.Add("b", other, []string{"x", "y"}); !ok {
		t.Fatal("add other")
	}
	if n := h.Publish("a", "x", []byte("1")); n != 2 {
		t.Errorf("publish a/x reached %d sockets, want 2", n)
	}
	if n := h.Publish("a", "y", []byte("2")); n != 1 {
		t.Errorf("publish a/y reached %d, want 1 (the socket opened for x only is skipped)", n)
	}
	if n := h.Publish("a", "", []byte("3")); n != 2 {
		t.Errorf("publish a/all reached %d, want 2", n)
	}
	h.Publish("b", "y", []byte("4"))
	if g := all.got(); len(g) != 3 {
		t.Errorf("all got %v", g)
	}
	if g := some.got(); len(g) != 2 || g[0] != "1" || g[1] != "3" {
		t.Errorf("some got %v, want [1 3]", g)
	}
	if g := other.got(); len(g) != 1 || g[0] != "4" {
		t.Errorf("other got %v, want [4]", g)
	}
	h.Remove(sSome)
	h.Remove(nil)
	if h.Count("a") != 1 {
		t.Errorf("count a = %d after remove, want 1", h.Count("a"))
	}
	if _, ok := h.Add("a", &fakeConn{}, nil); !ok {
		t.Error("a socket freed by Remove was not reusable")
	}
	all.dead = true
	if n := h.Publish("a", "", []byte("5")); n != 1 {
		t.Errorf("publish with a dead socket reached %d, want 1", n)
	}
}
