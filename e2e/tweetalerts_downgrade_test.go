package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTweetAlertsDowngrade: after a downgrade, the webhooks past the plan's
// count (the newest) stop firing and are not listed, so count never exceeds
// limit; tracked accounts past the plan are inactive and cannot be
// subscribed on /v1/ws; an upgrade brings both back. Both stores.
func TestTweetAlertsDowngrade(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: tweetAlertsConfig})
		testXGDowngrade(t, s)
	})
}

func testXGDowngrade(t *testing.T, s *server) {
	k := s.xgKey(t, "growth") // 35 accounts, 2 webhooks
	hs := s.xgUsers(t, 11, false)
	s.xgTrack(t, k.key, hs...)
	r1 := newCXReceiver(t, func(int) int { return 200 })
	r2 := newCXReceiver(t, func(int) int { return 200 })
	w1 := s.xgCreateWebhook(t, k.key, r1.srv.URL+"/old", nil)
	w2 := s.xgCreateWebhook(t, k.key, r2.srv.URL+"/new", nil)
	listed := func(wantLimit float64, want ...obj) {
		t.Helper()
		l := s.do(t, "GET", "/v1/webhooks", bearer(k.key), nil).wantOK(t, 200)
		var ids []float64
		for _, raw := range l.array(t, "webhooks") {
			o := decodeObj(t, raw, "listed webhook")
			if !o.boolean(t, "is_active") {
				t.Errorf("listed webhook %v is not active", o)
			}
			ids = append(ids, o.num(t, "id"))
		}
		var wantIDs []float64
		for _, w := range want {
			wantIDs = append(wantIDs, w.num(t, "id"))
		}
		if !slices.Equal(ids, wantIDs) || l.num(t, "count") != float64(len(want)) || l.num(t, "limit") != wantLimit {
			t.Errorf("GET /v1/webhooks %v: want ids %v, count %d, limit %v", l, wantIDs, len(want), wantLimit)
		}
		if l.num(t, "count") > l.num(t, "limit") {
			t.Errorf("count %v above limit %v", l["count"], l["limit"])
		}
	}
	listed(2, w1, w2)

	// Down to starter: 10 accounts, 1 webhook.
	s.patch(t, k.account, "xg", map[string]any{"plan": "starter"}).wantOK(t, 200)
	listed(1, w1)
	p := s.xgPost(t, hs[0], "after the downgrade", time.Second)
	r1.waitHits(t, p["id"].(string), 1)
	s.webhooksDone(t, "xg") // both were decided at once: r2's would be queued with r1's
	if n := len(r2.byTweet(t, p["id"].(string))); n != 0 {
		t.Errorf("the webhook past the plan got %d deliveries after the downgrade", n)
	}
	s.do(t, "POST", "/v1/webhooks", xgJsonHdr(k.key), `{"url":"`+r2.srv.URL+`/third"}`).wantErr(t, 403, "forbidden")

	inactive := hs[10] // the newest, past the 10 of starter
	acc := s.do(t, "GET", "/v1/accounts/"+inactive, bearer(k.key), nil).wantOK(t, 200)
	if acc.boolean(t, "is_active") {
		t.Fatalf("%s after the downgrade %v: want is_active false", inactive, acc)
	}
	w := s.xgWS(t, k.key)
	w.SendText(t, `{"type":"subscribe","handles":["`+hs[0]+`","`+inactive+`"]}`)
	e := w.xgFrame(t, "error")
	if !strings.Contains(e.str(t, "message"), inactive) {
		t.Errorf("error %v does not name %s", e, inactive)
	}
	ack := w.xgFrame(t, "ack")
	if got := ack.strings(t, "handles"); !slices.Equal(got, []string{hs[0]}) || ack.num(t, "active") != 1 {
		t.Errorf("ack %v: want only %s subscribed", ack, hs[0])
	}

	// Back up: both webhooks fire and list, the handle can be subscribed.
	s.patch(t, k.account, "xg", map[string]any{"plan": "growth"}).wantOK(t, 200)
	listed(2, w1, w2)
	w.SendText(t, `{"type":"subscribe","handles":["`+inactive+`"]}`)
	if ack := w.xgFrame(t, "ack"); !slices.Equal(ack.strings(t, "handles"), []string{inactive}) || ack.num(t, "active") != 2 {
		t.Errorf("ack after the upgrade %v", ack)
	}
	q := s.xgPost(t, inactive, "after the upgrade", time.Second)
	r1.waitHits(t, q["id"].(string), 1)
	r2.waitHits(t, q["id"].(string), 1)
	if _, a := w.xgUntil(t, xgIsAlert(q["id"].(string))); a.str(t, "handle") != inactive {
		t.Errorf("alert %v", a)
	}
}
