package webhook

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/alertd/alertd/persistence"
)

// TestDeliveryLog: every attempt is logged with its status code, latency
// and result, and a finished delivery keeps its outcome instead of
// leaving the store; a redelivery goes out again under the same id and
// succeeds, and the log keeps all attempts.
func TestDeliveryLog(t *testing.T) {
	q := &memQueue{}
	var ok atomic.Bool
	rcv := newReceiver(t, q, func(int) int {
		if ok.Load() {
			return 200
		}
		return 503
	})
	p := testPolicy()
	p.DisableAfter = 0
	e := newEngine(t, q, p)
	e.Put(Endpoint{ID: 4, URL: rcv.srv.URL, Secret: "s"})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.Publish([]Outgoing{{EndpointID: 4, DeliveryID: "d1", Body: []byte(`{"event":"tweet","data":{}}`)}})
	waitFor(t, "the delivery failed for good", func() bool { st, _ := q.state("d1"); return st == persistence.DeliveryFailed })
	_, log := q.state("d1")
	if len(log) != 3 {
		t.Fatalf("%d attempts logged, want 3: %+v", len(log), log)
	}
	for i, a := range log {
		want := persistence.AttemptRetry
		if i == 2 {
			want = persistence.AttemptFailed
		}
		if a.StatusCode != 503 || a.Result != want || a.Attempts != i+1 || a.Latency <= 0 || a.At.IsZero() || a.Error != "" {
			t.Errorf("attempt %d: %+v; want 503, %s, attempts %d, a latency and a time", i+1, a, want, i+1)
		}
	}
	if rows := q.all(); rows[0].Event != "tweet" {
		t.Errorf("event %q, want tweet (the body's event)", rows[0].Event)
	}

	ok.Store(true)
	rows, err := e.Redeliver(t.Context(), 4, persistence.RedeliverFilter{IDs: []string{"d1"}})
	if err != nil || len(rows) != 1 {
		t.Fatalf("Redeliver: %v, %v", rows, err)
	}
	waitFor(t, "the redelivery succeeded", func() bool { st, _ := q.state("d1"); return st == persistence.DeliveryDelivered })
	if _, log = q.state("d1"); len(log) != 4 || log[3].StatusCode != 200 || log[3].Result != persistence.AttemptOK || log[3].Attempts != 1 {
		t.Errorf("after the redelivery: %+v", log)
	}
	hits := rcv.got()
	if len(hits) != 4 || hits[3].headers.Get("X-Delivery-Id") != "d1" {
		t.Errorf("%d hits; the redelivery must carry the same delivery id", len(hits))
	}
	if st := e.Stats(); st.Delivered != 1 || st.Failed != 1 || st.Retried != 2 || st.Latency.Count() != 1 {
		t.Errorf("stats %+v", st)
	}
	if _, err := e.Redeliver(t.Context(), 99, persistence.RedeliverFilter{IDs: []string{"d1"}}); !errors.Is(err, ErrUnknownEndpoint) {
		t.Errorf("Redeliver to an unknown endpoint: %v, want ErrUnknownEndpoint", err)
	}
}

// TestDeliveryLogConnectionError: an attempt without an answer logs why,
// with no status code and without the URL (its query may hold a token).
func TestDeliveryLogConnectionError(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(int) int { return 200 })
	url := rcv.srv.URL + "/hook?token=s3cret"
	rcv.srv.Close() // nothing listens there any more
	p := testPolicy()
	p.Attempts, p.DisableAfter = 1, 0
	e := newEngine(t, q, p)
	e.Put(Endpoint{ID: 5, URL: url, Secret: "s"})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.Publish([]Outgoing{{EndpointID: 5, DeliveryID: "c1", Body: []byte(`{"type":"engagement_update"}`)}})
	waitFor(t, "the delivery failed", func() bool { st, _ := q.state("c1"); return st == persistence.DeliveryFailed })
	_, log := q.state("c1")
	if len(log) != 1 || log[0].StatusCode != 0 || log[0].Error == "" || log[0].Result != persistence.AttemptFailed {
		t.Fatalf("log %+v", log)
	}
	if strings.Contains(log[0].Error, "s3cret") || strings.Contains(log[0].Error, "/hook") {
		t.Errorf("the logged error shows the URL: %q", log[0].Error)
	}
}

// TestRemovedEndpointDropsQueue: what was queued for an endpoint that goes
// away ends as dropped, in the log.
func TestRemovedEndpointDropsQueue(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(int) int { return 0 }) // hangs
	e := newEngine(t, q, testPolicy())
	e.Put(Endpoint{ID: 6, URL: rcv.srv.URL, Secret: "s"})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var out []Outgoing
	for _, id := range []string{"q1", "q2", "q3", "q4", "q5", "q6"} {
		out = append(out, Outgoing{EndpointID: 6, DeliveryID: id, Body: []byte(`{}`)})
	}
	e.Publish(out)
	waitFor(t, "the deliveries stored", func() bool { return len(q.all()) == 6 })
	e.Remove(6)
	waitFor(t, "the queue dropped", func() bool { return len(q.queued()) == 0 })
	if st, _ := q.state("q6"); st != persistence.DeliveryDropped {
		t.Errorf("q6 is %q, want dropped", st)
	}
}
