package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// testXGWebhookLog: the delivery log shows a failing webhook's attempts
// (status codes, latencies, results) to its owner and to the operator; a
// redelivery goes out under the same delivery id and succeeds, and the log
// keeps every attempt.
func testXGWebhookLog(t *testing.T, s *server) {
	rcv := newCXReceiver(t, func(int) int { return 500 })
	k := s.xgKey(t, "pro")
	h := s.xgUsers(t, 1, false)[0]
	s.xgTrack(t, k.key, h)
	id := strconv.Itoa(int(s.xgCreateWebhook(t, k.key, rcv.srv.URL+"/log?token=t0k3n", nil).num(t, "id")))
	p := s.xgPost(t, h, "logged and replayed", 0)
	rcv.waitHits(t, p["id"].(string), 3)

	admin := "/admin/v1/webhooks/" + id
	var d obj
	testkit.WaitFor(t, 10*time.Second, "the failure logged", func() (bool, string) {
		d = s.deliveryLog(t, admin+"/deliveries?product=xg", s.admin)
		return d != nil && d.str(t, "state") == "failed", "not yet"
	})
	wantAttempts(t, d, 500, 500, 500)
	for i, want := range []string{"retry", "retry", "failed"} {
		if a := decodeObj(t, d.array(t, "attempts")[i], "attempt"); a.str(t, "result") != want || a.num(t, "latency_ms") < 0 || !a.isNull("error") {
			t.Errorf("attempt %d: %v, want result %s", i+1, a, want)
		}
	}
	// The owner sees the same delivery.
	if own := s.deliveryLog(t, "/v1/webhooks/"+id+"/deliveries", k.key); own == nil || own.str(t, "delivery_id") != d.str(t, "delivery_id") {
		t.Fatalf("the owner's log: %v", own)
	}
	s.do(t, "GET", "/v1/webhooks/"+id+"/deliveries", bearer(s.xgKey(t, "pro").key), nil).wantErr(t, 404, "not_found")

	// The receiver is fixed: redeliver by id.
	rcv.setAnswer(func(int) int { return 200 })
	r := s.adminDo(t, "POST", admin+"/deliveries/"+d.str(t, "delivery_id")+"/redeliver", nil).wantOK(t, 202)
	if r.num(t, "redelivered") != 1 {
		t.Errorf("redelivered %v", r)
	}
	hits := rcv.waitHits(t, p["id"].(string), 4)
	if hits[3].header.Get("X-Delivery-Id") != hits[0].header.Get("X-Delivery-Id") || hits[3].status != 200 {
		t.Errorf("the redelivery: id %q (first %q), status %d", hits[3].header.Get("X-Delivery-Id"), hits[0].header.Get("X-Delivery-Id"), hits[3].status)
	}
	testkit.WaitFor(t, 10*time.Second, "the redelivery logged", func() (bool, string) {
		d = s.deliveryLog(t, admin+"/deliveries", s.admin)
		return d.str(t, "state") == "delivered", d.str(t, "state")
	})
	wantAttempts(t, d, 500, 500, 500, 200)
	if d.isNull("finished_at") {
		t.Error("a delivered delivery has no finished_at")
	}
	// Nothing failed is left in the last hour.
	since := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	if r := s.adminDo(t, "POST", admin+"/redeliver", map[string]any{"since": since}).wantOK(t, 202); r.num(t, "redelivered") != 0 {
		t.Errorf("range redelivery of failed ones: %v", r)
	}
}

// deliveryLog reads a delivery log with key and returns its newest
// delivery (nil when empty).
func (s *server) deliveryLog(t *testing.T, path, key string) obj {
	t.Helper()
	page := s.do(t, "GET", path, bearer(key), nil).wantOK(t, 200)
	page.wantKeys(t, "delivery log", "deliveries", "next_cursor")
	ds := page.array(t, "deliveries")
	if len(ds) == 0 {
		return nil
	}
	return decodeObj(t, ds[0], "delivery")
}

// wantAttempts checks the status codes of a delivery's attempts.
func wantAttempts(t *testing.T, d obj, codes ...int) {
	t.Helper()
	as := d.array(t, "attempts")
	if len(as) != len(codes) {
		t.Fatalf("%d attempts, want %d: %v", len(as), len(codes), d)
	}
	for i, c := range codes {
		if a := decodeObj(t, as[i], "attempt"); int(a.num(t, "status_code")) != c {
			t.Errorf("attempt %d: status %v, want %d", i+1, a.num(t, "status_code"), c)
		}
	}
}
