package webhook

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/alertd/alertd/persistence"
)

// TestSenderKeepsConnectionsAlive: deliveries made one after another to
// one endpoint reuse one connection.
func TestSenderKeepsConnectionsAlive(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	q := &memQueue{}
	p := testPolicy()
	p.PerEndpoint = 1
	e := newEngine(t, q, p)
	e.Put(Endpoint{ID: 1, URL: srv.URL, Secret: "k"})
	_ = e.Start(t.Context())
	var out []Outgoing
	for i := range 5 {
		out = append(out, Outgoing{EndpointID: 1, DeliveryID: fmt.Sprint("d", i), Body: []byte(`{}`)})
	}
	e.Publish(out)
	waitFor(t, "five delivered", func() bool { return e.Stats().Delivered == 5 })
	mu.Lock()
	defer mu.Unlock()
	if conns != 1 {
		t.Errorf("%d connections for 5 deliveries in a row, want 1", conns)
	}
}

// TestLongAnswerStillCounts: an answer whose body passes the read bound is
// judged by its status.
func TestLongAnswerStillCounts(t *testing.T) {
	for _, status := range []int{200, 404} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(strings.Repeat("x", 2*maxAnswer)))
		}))
		t.Cleanup(srv.Close)
		q := &memQueue{}
		p := testPolicy()
		e := newEngine(t, q, p)
		e.Put(Endpoint{ID: 1, URL: srv.URL, Secret: "k"})
		_ = e.Start(t.Context())
		e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "long", Body: []byte(`{}`)}})
		want := persistence.DeliveryDelivered
		if status == 404 {
			want = persistence.DeliveryFailed
		}
		waitFor(t, fmt.Sprint("the answer ", status, " judged"), func() bool { st, _ := q.state("long"); return st == want })
		if _, log := q.state("long"); len(log) != 1 || log[0].StatusCode != status {
			t.Errorf("status %d: log %+v, want one attempt with its status", status, log)
		}
	}
}

// TestStaleConnectionSentAgain: a receiver that closes a keep-alive
// connection while it is idle does not cost the next delivery an attempt:
// the request goes again on a new connection, as net/http does.
func TestStaleConnectionSentAgain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	closed := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				// Answer one request, keep-alive, then close the idle
				// connection.
				buf := make([]byte, 64<<10)
				n, _ := c.Read(buf)
				if n > 0 {
					_, _ = c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
				}
				c.Close()
				closed <- struct{}{}
			}()
		}
	}()
	q := &memQueue{}
	p := testPolicy()
	p.PerEndpoint = 1
	e := newEngine(t, q, p)
	e.Put(Endpoint{ID: 1, URL: "http://" + ln.Addr().String() + "/", Secret: "k"})
	_ = e.Start(t.Context())
	e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "first", Body: []byte(`{}`)}})
	waitFor(t, "first delivered", func() bool { return e.Stats().Delivered == 1 })
	<-closed // the idle connection is gone
	e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "second", Body: []byte(`{}`)}})
	waitFor(t, "second delivered", func() bool { return e.Stats().Delivered == 2 })
	if s := e.Stats(); s.Retried != 0 {
		t.Errorf("%d retries: the closed idle connection cost an attempt", s.Retried)
	}
}
