package edge

import (
	"io"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestIPLimit: a peer gets max connections; the next is closed at accept;
// closing one (twice) gives back one place; trusted peers are not capped.
func TestIPLimit(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	trusted := netip.MustParseAddr("127.0.0.9")
	ln := newIPLimit(raw, 2, func(ip netip.Addr) bool { return ip == trusted })
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		c, err := d.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a1, _ := dial("127.0.0.5"), dial("127.0.0.5")
	s1, s2 := <-accepted, <-accepted
	// The third from the same address is closed by the listener: its read
	// ends (EOF or reset) instead of waiting.
	c3 := dial("127.0.0.5")
	_ = c3.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c3.Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection over the cap was served")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the connection over the cap was left open")
	}
	// Another address, and a trusted proxy beyond the cap, are accepted.
	dial("127.0.0.6")
	<-accepted
	for range 3 {
		dial("127.0.0.9")
		<-accepted
	}
	s1.Close()
	s1.Close() // a second Close gives nothing back
	_ = a1
	dial("127.0.0.5")
	<-accepted
	ln.mu.Lock()
	n := ln.open[netip.MustParseAddr("127.0.0.5")]
	ln.mu.Unlock()
	if n != 2 {
		t.Errorf("127.0.0.5 holds %d places, want 2", n)
	}
	s2.Close()
}

// TestLingerKeepsTheAnswer: a connection closed right after its answer,
// with the client's body still unread on the server, would be reset, and
// the answer lost with it; Linger drains first, so the client reads the
// answer and then a clean end.
func TestLingerKeepsTheAnswer(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newIPLimit(raw, 8, func(netip.Addr) bool { return false })
	defer ln.Close()
	served := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			served <- c
		}
	}()
	cl, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sc := <-served
	answer := "HTTP/1.1 413 Request Entity Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
	if _, err := sc.Write([]byte(answer)); err != nil {
		t.Fatal(err)
	}
	// The body the server refused, already sent (loopback buffers hold it).
	if _, err := cl.Write(make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	sc.(*ipConn).Linger()
	closed := make(chan error, 1)
	go func() { closed <- sc.Close() }() // it drains until the client ends
	_ = cl.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(cl)
	if err != nil || string(got) != answer {
		t.Fatalf("client read %q, %v; want the answer and a clean end", got, err)
	}
	cl.Close()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}
