package e2e

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

var xgWebhookKeys = []string{"id", "url", "events", "filter_handles", "filter_keywords", "is_active", "consecutive_failures", "created_at"}

// testXGWebhooksCRUD covers registration (secret once, plan limits, the
// address refusal), the list without secrets, and deletion.
func testXGWebhooksCRUD(t *testing.T, s *server) {
	rcv := newCXReceiver(t, func(int) int { return 200 })
	free := s.xgKey(t, "free")
	s.do(t, "POST", "/v1/webhooks", xgJsonHdr(free.key), `{"url":"`+rcv.srv.URL+`"}`).wantErr(t, 403, "forbidden")
	if l := s.do(t, "GET", "/v1/webhooks", bearer(free.key), nil).wantOK(t, 200); l.num(t, "limit") != 0 || l.num(t, "count") != 0 {
		t.Errorf("free list %v", l)
	}
	dt := s.issue(t, map[string]any{"product": "dt", "plan": "pro"})
	s.do(t, "POST", "/v1/webhooks", xgJsonHdr(dt.key), `{"url":"`+rcv.srv.URL+`"}`).wantErr(t, 403, "forbidden")

	k := s.xgKey(t, "starter") // 1 webhook
	before := time.Now().Add(-2 * time.Second)
	w := s.xgCreateWebhook(t, k.key, rcv.srv.URL+"/hook", nil)
	w.wantKeys(t, "created webhook", append(slices.Clone(xgWebhookKeys), "secret")...)
	secret := w.str(t, "secret")
	if _, err := hex.DecodeString(secret); err != nil || len(secret) != 64 || secret != xgLower(secret) {
		t.Errorf("secret %q is not 64 lowercase hex characters", secret)
	}
	if w.str(t, "url") != rcv.srv.URL+"/hook" || !slices.Equal(w.strings(t, "events"), []string{"tweet"}) ||
		len(w.strings(t, "filter_handles")) != 0 || len(w.strings(t, "filter_keywords")) != 0 ||
		!w.boolean(t, "is_active") || w.num(t, "consecutive_failures") != 0 || w.num(t, "id") < 1 {
		t.Errorf("created %v", w)
	}
	if at, err := time.Parse(time.RFC3339Nano, w.str(t, "created_at")); err != nil || at.Before(before) || at.After(time.Now().Add(2*time.Second)) {
		t.Errorf("created_at %q: %v", w.str(t, "created_at"), err)
	}
	s.do(t, "POST", "/v1/webhooks", xgJsonHdr(k.key), `{"url":"`+rcv.srv.URL+`/2"}`).wantErr(t, 403, "forbidden")
	l := s.do(t, "GET", "/v1/webhooks", bearer(k.key), nil).wantOK(t, 200)
	l.wantKeys(t, "webhook list", "webhooks", "count", "limit")
	if l.num(t, "count") != 1 || l.num(t, "limit") != 1 {
		t.Errorf("list %v", l)
	}
	listed := decodeObj(t, l.array(t, "webhooks")[0], "listed webhook")
	listed.wantKeys(t, "listed webhook (no secret)", xgWebhookKeys...)

	// Private, loopback (outside the allow list), link-local, multicast and
	// unspecified targets are refused at registration.
	pro := s.xgKey(t, "pro")
	for _, u := range []string{"http://10.0.0.1/h", "http://192.168.1.20/h", "http://172.16.5.5/h", "http://169.254.169.254/latest",
		"http://[::1]:8080/h", "http://[fe80::1]/h", "http://[fd00::1]/h", "http://224.0.0.1/h", "http://0.0.0.0/h",
		"http://100.64.0.1/h", "http://[::ffff:10.0.0.1]/h", "ftp://example.com/h", "not a url", "http:///nohost"} {
		s.do(t, "POST", "/v1/webhooks", xgJsonHdr(pro.key), `{"url":"`+u+`"}`).wantErr(t, 400, "bad_request")
	}
	s.do(t, "POST", "/v1/webhooks", xgJsonHdr(pro.key), `{}`).wantPlain(t, 422)
	s.do(t, "POST", "/v1/webhooks", xgJsonHdr(pro.key), `{"url":"`+rcv.srv.URL+`","events":["follow"]}`).wantErr(t, 400, "bad_request")

	id := strconv.Itoa(int(w.num(t, "id")))
	s.do(t, "DELETE", "/v1/webhooks/"+id, bearer(pro.key), nil).wantErr(t, 404, "not_found") // not theirs
	s.do(t, "DELETE", "/v1/webhooks/999999999", bearer(k.key), nil).wantErr(t, 404, "not_found")
	s.do(t, "DELETE", "/v1/webhooks/abc", bearer(k.key), nil).wantErr(t, 404, "not_found")
	d := s.do(t, "DELETE", "/v1/webhooks/"+id, bearer(k.key), nil).wantOK(t, 200)
	d.wantKeys(t, "delete", "deleted", "id")
	if !d.boolean(t, "deleted") || d.num(t, "id") != w.num(t, "id") {
		t.Errorf("delete %v", d)
	}
	s.do(t, "DELETE", "/v1/webhooks/"+id, bearer(k.key), nil).wantErr(t, 404, "not_found")
	if l := s.do(t, "GET", "/v1/webhooks", bearer(k.key), nil).wantOK(t, 200); l.num(t, "count") != 0 || len(l.array(t, "webhooks")) != 0 {
		t.Errorf("list after delete %v", l)
	}
	w2 := s.xgCreateWebhook(t, k.key, rcv.srv.URL+"/again", nil) // the slot is free again
	if w2.num(t, "id") == w.num(t, "id") || w2.str(t, "secret") == secret {
		t.Errorf("a new registration must have a new id and secret")
	}
}

func xgLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

var xgDeliveryDataKeys = []string{"tweet_id", "author", "text", "url", "image_url", "image_urls", "is_reply", "is_quote",
	"created_at", "original_tweet_id", "possibly_sensitive", "mentions"}

// xgWantSigned asserts spec 1's delivery headers and signature.
func xgWantSigned(t *testing.T, h xgHit, secret string, webhookID float64) {
	t.Helper()
	if ct := h.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if got := h.header.Get("X-Webhook-Id"); got != strconv.Itoa(int(webhookID)) {
		t.Errorf("X-Webhook-Id %q, want %v", got, webhookID)
	}
	if h.header.Get("X-Delivery-Id") == "" {
		t.Errorf("no X-Delivery-Id")
	}
	if !xgVerify(secret, h.body, h.header.Get("X-Signature")) {
		t.Errorf("X-Signature %q does not verify over the raw body", h.header.Get("X-Signature"))
	}
}

// testXGWebhookDelivery covers a delivery's headers, signature and body, a
// post of an untracked handle (not delivered), and deletion stopping them.
func testXGWebhookDelivery(t *testing.T, s *server) {
	k := s.xgKey(t, "pro")
	hs := s.xgUsers(t, 2, false)
	h, untracked := hs[0], hs[1]
	s.xgTrack(t, k.key, h)
	r1 := newCXReceiver(t, func(int) int { return 200 })
	r2 := newCXReceiver(t, func(int) int { return 204 })
	w1 := s.xgCreateWebhook(t, k.key, r1.srv.URL+"/a", nil)
	w2 := s.xgCreateWebhook(t, k.key, r2.srv.URL+"/b", map[string]any{"events": []string{"tweet"}})

	p := s.xgPost(t, h, "gm fam", time.Second)
	hit := r1.waitHits(t, p["id"].(string), 1)[0]
	xgWantSigned(t, hit, w1.str(t, "secret"), w1.num(t, "id"))
	body := decodeObj(t, hit.body, "delivery body")
	body.wantKeys(t, "delivery body", "event", "timestamp", "data")
	if body.str(t, "event") != "tweet" {
		t.Errorf("event %q", body.str(t, "event"))
	}
	if ts := body.num(t, "timestamp"); ts < float64(time.Now().Add(-time.Minute).UnixMilli()) || ts > float64(time.Now().UnixMilli()) {
		t.Errorf("timestamp %v is not epoch ms of now", ts)
	}
	d := body.object(t, "data")
	d.wantKeys(t, "delivery data", xgDeliveryDataKeys...)
	media := p["media"].([]any)[0].(jsonMap)["url"].(string)
	if d.str(t, "tweet_id") != p["id"] || d.str(t, "author") != h || d.str(t, "text") != "gm fam" ||
		d.str(t, "url") != "https://x.com/"+h+"/status/"+p["id"].(string) || d.str(t, "image_url") != media ||
		!slices.Equal(d.strings(t, "image_urls"), []string{media}) || d.boolean(t, "is_reply") || d.boolean(t, "is_quote") ||
		d.num(t, "created_at") != float64(p["created_at"].(int64)) || !d.isNull("original_tweet_id") ||
		d.boolean(t, "possibly_sensitive") || len(d.array(t, "mentions")) != 0 {
		t.Errorf("delivery data %v", d)
	}
	xgWantSigned(t, r2.waitHits(t, p["id"].(string), 1)[0], w2.str(t, "secret"), w2.num(t, "id"))

	q := postObs(h, "quote", "look at this")
	s.send(t, q)
	qd := decodeObj(t, r1.waitHits(t, q["id"].(string), 1)[0].body, "quote body").object(t, "data")
	if !qd.boolean(t, "is_quote") || qd.str(t, "original_tweet_id") != "1800000000000000001" {
		t.Errorf("quote data %v", qd)
	}

	// A post of an untracked handle goes nowhere; a deleted webhook gets
	// nothing more.
	u := s.xgPost(t, untracked, "not mine", time.Second)
	id1 := strconv.Itoa(int(w1.num(t, "id")))
	s.do(t, "DELETE", "/v1/webhooks/"+id1, bearer(k.key), nil).wantOK(t, 200)
	after := s.xgPost(t, h, "after delete", time.Second)
	r2.waitHits(t, after["id"].(string), 1)
	if n := len(r1.byTweet(t, after["id"].(string))); n != 0 {
		t.Errorf("a deleted webhook got %d deliveries", n)
	}
	if n := len(r1.byTweet(t, u["id"].(string))) + len(r2.byTweet(t, u["id"].(string))); n != 0 {
		t.Errorf("a post of an untracked handle was delivered %d times", n)
	}
}

// testXGWebhookFilters: empty filter_handles means every tracked account,
// empty filter_keywords no keyword filtering; otherwise both must match
// (keywords: any, ignoring case).
func testXGWebhookFilters(t *testing.T, s *server) {
	k := s.xgKey(t, "pro")
	hs := s.xgUsers(t, 2, false)
	h1, h2 := hs[0], hs[1]
	s.xgTrack(t, k.key, h1, h2)
	ra, rb, rc := newCXReceiver(t, func(int) int { return 200 }), newCXReceiver(t, func(int) int { return 200 }), newCXReceiver(t, func(int) int { return 200 })
	s.xgCreateWebhook(t, k.key, ra.srv.URL, map[string]any{"filter_handles": []string{"@" + h1}})
	s.xgCreateWebhook(t, k.key, rb.srv.URL, map[string]any{"filter_keywords": []string{"MOON"}})
	s.xgCreateWebhook(t, k.key, rc.srv.URL, map[string]any{"filter_handles": []string{h2}, "filter_keywords": []string{"gm", "wagmi"}})
	p1 := s.xgPost(t, h1, "hello", time.Second)["id"].(string)
	stream := s.xgPost(t, h2, "to the moon", time.Second)["id"].(string)
	p3 := s.xgPost(t, h2, "GM moon", time.Second)["id"].(string)
	p4 := s.xgPost(t, h1, "moonshot", time.Second)["id"].(string)
	p5 := s.xgPost(t, h2, "nothing here", time.Second)["id"].(string)
	want := map[*xgReceiver][]string{ra: {p1, p4}, rb: {stream, p3, p4}, rc: {p3}}
	for r, ids := range want {
		for _, id := range ids {
			r.waitHits(t, id, 1)
		}
	}
	names := map[*xgReceiver]string{ra: "filter_handles", rb: "filter_keywords", rc: "both"}
	for r, ids := range want {
		for _, p := range []string{p1, stream, p3, p4, p5} {
			if n := len(r.byTweet(t, p)); !slices.Contains(ids, p) && n > 0 {
				t.Errorf("webhook with %s got post %s", names[r], p)
			} else if slices.Contains(ids, p) && n != 1 {
				t.Errorf("webhook with %s got post %s %d times", names[r], p, n)
			}
		}
	}
}

// testXGWebhookRetries: 5xx and network failures (closed connection,
// timeout) are retried up to 3 attempts with backoff; 4xx is not; each
// failed delivery counts once; a success resets the count.
func testXGWebhookRetries(t *testing.T, s *server) {
	k := s.xgKey(t, "pro")
	hs := s.xgUsers(t, 4, false)
	s.xgTrack(t, k.key, hs...)
	r500 := newCXReceiver(t, func(int) int { return 500 })
	r404 := newCXReceiver(t, func(int) int { return 404 })
	slow := newCXReceiver(t, func(int) int { return 0 })
	closed := newCXClosing(t)
	w500 := s.xgCreateWebhook(t, k.key, r500.srv.URL, map[string]any{"filter_handles": []string{hs[0]}})
	w404 := s.xgCreateWebhook(t, k.key, r404.srv.URL, map[string]any{"filter_handles": []string{hs[1]}})
	wSlow := s.xgCreateWebhook(t, k.key, slow.srv.URL, map[string]any{"filter_handles": []string{hs[2]}})
	wClosed := s.xgCreateWebhook(t, k.key, "http://"+closed.ln.Addr().String()+"/h", map[string]any{"filter_handles": []string{hs[3]}})

	p := make([]string, 4)
	for i, h := range hs {
		p[i] = s.xgPost(t, h, "retry me", time.Second)["id"].(string)
	}
	failures := func(w obj, n float64) {
		t.Helper()
		testkit.WaitFor(t, 20*time.Second, fmt.Sprintf("webhook %v at %v consecutive failures", w.num(t, "id"), n), func() (bool, string) {
			o := s.xgWebhookByID(t, k.key, w.num(t, "id"))
			if o == nil {
				return false, "not listed"
			}
			return o.num(t, "consecutive_failures") == n, fmt.Sprint(o)
		})
	}
	for _, w := range []obj{w500, w404, wSlow, wClosed} {
		failures(w, 1) // each delivery's final failure counts once
	}
	const tol = 30 * time.Millisecond
	hits := r500.byTweet(t, p[0])
	if len(hits) != 3 {
		t.Fatalf("500: %d attempts, want 3", len(hits))
	}
	for i, min := range []time.Duration{xgBackoff1, xgBackoff2} {
		if gap := hits[i+1].at.Sub(hits[i].at); gap < min-tol {
			t.Errorf("500: attempt %d came %v after the previous one, want >= %v", i+2, gap, min)
		}
	}
	for _, h := range hits {
		xgWantSigned(t, h, w500.str(t, "secret"), w500.num(t, "id"))
		if h.header.Get("X-Delivery-Id") != hits[0].header.Get("X-Delivery-Id") {
			t.Errorf("the delivery id changed between attempts")
		}
	}
	if n := len(r404.byTweet(t, p[1])); n != 1 {
		t.Errorf("404: %d attempts, want 1 (4xx is not retried)", n)
	}
	if n := len(slow.byTweet(t, p[2])); n != 3 {
		t.Errorf("timeout: %d attempts, want 3", n)
	}
	if n := closed.conns.Load(); n < 3 {
		t.Errorf("closed connection: %d connections, want at least 3 (one per attempt)", n)
	}

	// 503 then 200: delivered on the second attempt, and the count resets.
	r500.setAnswer(func(n int) int {
		if n == 4 {
			return 503
		}
		return 200
	})
	again := s.xgPost(t, hs[0], "second try", time.Second)["id"].(string)
	if n := len(r500.waitHits(t, again, 2)); n != 2 {
		t.Errorf("503 then 200: %d attempts", n)
	}
	failures(w500, 0)
}

// testXGWebhookDisable: 10 consecutive failed deliveries disable a webhook
// for good: gone from the list, no longer counted, no more deliveries.
func testXGWebhookDisable(t *testing.T, s *server) {
	k := s.xgKey(t, "starter")
	hs := s.xgUsers(t, 1, false)
	s.xgTrack(t, k.key, hs[0])
	bad := newCXReceiver(t, func(int) int { return 410 })
	w := s.xgCreateWebhook(t, k.key, bad.srv.URL, nil)
	var ids []string
	for i := range 10 {
		ids = append(ids, s.xgPost(t, hs[0], fmt.Sprint("fail ", i), time.Second)["id"].(string))
	}
	testkit.WaitFor(t, 30*time.Second, "webhook disabled", func() (bool, string) {
		return s.xgWebhookByID(t, k.key, w.num(t, "id")) == nil, fmt.Sprint(len(bad.got()), " attempts")
	})
	if l := s.do(t, "GET", "/v1/webhooks", bearer(k.key), nil).wantOK(t, 200); l.num(t, "count") != 0 {
		t.Errorf("a disabled webhook is still counted: %v", l)
	}
	if n := len(bad.got()); n != 10 {
		t.Errorf("%d attempts before disabling, want 10", n)
	}
	good := newCXReceiver(t, func(int) int { return 200 })
	w2 := s.xgCreateWebhook(t, k.key, good.srv.URL, nil) // the slot is free
	if w2.num(t, "id") == w.num(t, "id") {
		t.Errorf("new registration reused the id")
	}
	last := s.xgPost(t, hs[0], "after disable", time.Second)["id"].(string)
	good.waitHits(t, last, 1)
	if n := len(bad.byTweet(t, last)); n != 0 {
		t.Errorf("a disabled webhook got a delivery")
	}
	s.do(t, "DELETE", "/v1/webhooks/"+strconv.Itoa(int(w.num(t, "id"))), bearer(k.key), nil).wantErr(t, 404, "not_found")
}
