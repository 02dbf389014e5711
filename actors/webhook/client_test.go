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
