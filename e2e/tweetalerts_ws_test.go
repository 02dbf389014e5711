package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/gorilla/websocket"
)

// testXGSocketAuthAndLimits: a bad key or the free plan get a plain-text
// 401 before the upgrade; connections over the plan's limit (per account;
// 5 for a dt_ key) a plain-text 429; closing one frees its slot.
func testXGSocketAuthAndLimits(t *testing.T, s *server) {
	s.xgRefused(t, "", nil, 401)
	s.xgRefused(t, "?api_key=xg_"+strings.Repeat("0", 48), nil, 401)
	s.xgRefused(t, "?api_key=cw_"+strings.Repeat("0", 48), nil, 401)
	free := s.xgKey(t, "free")
	s.xgRefused(t, "?api_key="+free.key, nil, 401)
	revoked := s.xgKey(t, "pro")
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+revoked.key, nil).wantOK(t, 200)
	s.xgRefused(t, "?api_key="+revoked.key, nil, 401)

	starter := s.xgKey(t, "starter") // 2 connections
	a, b := s.xgWS(t, starter.key), s.xgWS(t, starter.key)
	s.xgRefused(t, "?api_key="+starter.key, nil, 429)
	a.CloseGracefully()
	testkit.WaitFor(t, 10*time.Second, "slot freed", func() (bool, string) {
		w, r, err := xgDial(t, s.wsURL("/v1/ws?api_key="+starter.key), nil, false)
		if err != nil {
			return false, testkit.ResponseText(r)
		}
		w.Close()
		return true, ""
	})
	_ = b

	dt := s.issue(t, map[string]any{"product": "dt", "plan": "starter"})
	for range 5 {
		s.xgWS(t, dt.key)
	}
	s.xgRefused(t, "?api_key="+dt.key, nil, 429)
}

// testXGSocketFrames: subscribe (tracked handles only; an error frame for
// each other one; ack with action, handles, active, max), the plan's handle
// maximum after a downgrade, unsubscribe, ping/pong, bad frames.
func testXGSocketFrames(t *testing.T, s *server) {
	k := s.xgKey(t, "pro")
	hs := s.xgUsers(t, 11, false)
	s.xgTrack(t, k.key, hs...)
	w := s.xgWS(t, k.key)
	w.SendText(t, `{"type":"ping"}`)
	if got := string(w.Next(t)); got != `{"type":"pong"}` {
		t.Fatalf("pong %s", got)
	}
	ghost := "ghost_" + testkit.RandomHex(3)
	w.SendText(t, `{"type":"subscribe","handles":["`+hs[0]+`","`+ghost+`","@`+strings.ToUpper(hs[1])+`"]}`)
	e := w.xgFrame(t, "error")
	e.wantKeys(t, "error frame", "type", "message")
	if !strings.Contains(e.str(t, "message"), ghost) {
		t.Errorf("error %v does not name %s", e, ghost)
	}
	ack := w.xgFrame(t, "ack")
	ack.wantKeys(t, "ack", "type", "action", "handles", "active", "max")
	if ack.str(t, "action") != "subscribe" || !slices.Equal(ack.strings(t, "handles"), []string{hs[0], hs[1]}) ||
		ack.num(t, "active") != 2 || ack.num(t, "max") != 75 {
		t.Errorf("ack %v", ack)
	}
	w.SendText(t, `{"type":"unsubscribe","handles":["`+hs[1]+`"]}`)
	ack = w.xgFrame(t, "ack")
	if ack.str(t, "action") != "unsubscribe" || ack.num(t, "active") != 1 {
		t.Errorf("unsubscribe ack %v", ack)
	}
	w.SendText(t, `{"type":"dance"}`)
	w.xgFrame(t, "error")
	w.SendText(t, `not json`)
	w.xgFrame(t, "error")

	// Downgraded to starter (10 handles) with 11 tracked: the newest is
	// inactive and its subscribe is refused with an error frame naming it,
	// the rest acknowledged.
	s.patch(t, k.account, "xg", map[string]any{"plan": "starter"}).wantOK(t, 200)
	w2 := s.xgWS(t, k.key)
	quoted := make([]string, len(hs))
	for i, h := range hs {
		quoted[i] = `"` + h + `"`
	}
	w2.SendText(t, `{"type":"subscribe","handles":[`+strings.Join(quoted, ",")+`]}`)
	if e := w2.xgFrame(t, "error"); !strings.Contains(e.str(t, "message"), hs[10]) {
		t.Errorf("inactive handle error %v does not name %s", e, hs[10])
	}
	ack = w2.xgFrame(t, "ack")
	if len(ack.strings(t, "handles")) != 10 || ack.num(t, "active") != 10 || ack.num(t, "max") != 10 {
		t.Errorf("ack after downgrade %v", ack)
	}
}

// testXGSocketSubscribeWholePlan: one `subscribe` naming the Ultra plan's
// whole list (1,000 handles of 50 characters, written "@Handle" and
// indented as JSON.stringify(v, null, 2) writes it) fits the socket's read
// limit and is acknowledged in full.
func testXGSocketSubscribeWholePlan(t *testing.T, s *server) {
	k := s.xgKey(t, "ultra")
	const n = 1000
	var lines []string
	var handles []string
	for range n {
		u := newUser("cx")
		u.Handle = (u.Handle + "_" + strings.Repeat("x", 50))[:50]
		handles = append(handles, u.Handle)
		lines = append(lines, u.line(t))
	}
	wantIngest(t, s.ingest(t, "application/x-ndjson", strings.Join(lines, "\n")), n)
	s.sync(t)
	for i := 0; i < n; i += 25 {
		if got := s.xgTrack(t, k.key, handles[i:i+25]...); len(got.strings(t, "added")) != 25 {
			t.Fatalf("track %d..: %v", i, got)
		}
	}
	var at []string
	for _, h := range handles {
		at = append(at, "@"+strings.ToUpper(h))
	}
	frame, err := json.MarshalIndent(map[string]any{"type": "subscribe", "handles": at}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("subscribe frame of %d handles: %d bytes", n, len(frame))
	// One frame, as a browser sends it: a client that fragments the
	// message into 4 KiB frames meets spec 1's 10-frames-a-second rule.
	w, _, err := dialWith(t, s.wsURL("/v1/ws?api_key="+k.key), testkit.DialOptions{WriteBufferSize: 128 << 10})
	if err != nil {
		t.Fatal(err)
	}
	w.SendText(t, string(frame))
	ack := w.xgFrame(t, "ack")
	if got := ack.strings(t, "handles"); len(got) != n || ack.num(t, "active") != n || ack.num(t, "max") != n {
		t.Fatalf("ack of the whole list: %d handles, active %v, max %v", len(got), ack.num(t, "active"), ack.num(t, "max"))
	}
}

var xgAlertKeys = []string{"type", "tweet_id", "handle", "text", "url", "image_url", "image_urls", "is_reply", "is_quote",
	"received_at", "created_at", "original_tweet_id", "possibly_sensitive", "mentions"}

func xgIsAlert(id string) func(obj) bool {
	return func(o obj) bool {
		var typ, tid string
		_ = json.Unmarshal(o["type"], &typ)
		_ = json.Unmarshal(o["tweet_id"], &tid)
		return typ == "alert" && tid == id
	}
}

// testXGSocketAlerts: alert frames carry every Tweet alert field; only
// subscribed handles, only posts under 60 s old and detected after the
// subscription, no replay; an untracked handle leaves the subscription.
func testXGSocketAlerts(t *testing.T, s *server) {
	k := s.xgKey(t, "growth")
	hs := s.xgUsers(t, 3, false)
	h, other, third := hs[0], hs[1], hs[2]
	s.xgTrack(t, k.key, hs...)
	early := s.xgPost(t, h, "before the subscription", time.Second)
	_ = early
	w := s.xgWS(t, k.key)
	w.SendText(t, `{"type":"subscribe","handles":["`+h+`","`+third+`"]}`)
	w.xgFrame(t, "ack")

	p := postObs(h, "reply", "gm @friend")
	p["mentions"] = []string{"friend"}
	p["possibly_sensitive"] = true
	before := time.Now().UnixMilli()
	s.send(t, p)
	skipped, a := w.xgUntil(t, xgIsAlert(p["id"].(string)))
	for _, f := range skipped {
		t.Errorf("unexpected frame before the alert: %v", f)
	}
	a.wantKeys(t, "alert", xgAlertKeys...)
	media := p["media"].([]any)[0].(jsonMap)["url"].(string)
	if a.str(t, "handle") != h || a.str(t, "text") != "gm @friend" || a.str(t, "url") != "https://x.com/"+h+"/status/"+p["id"].(string) ||
		a.str(t, "image_url") != media || !slices.Equal(a.strings(t, "image_urls"), []string{media}) ||
		!a.boolean(t, "is_reply") || a.boolean(t, "is_quote") || a.str(t, "original_tweet_id") != "1800000000000000001" ||
		!a.boolean(t, "possibly_sensitive") || !slices.Equal(a.strings(t, "mentions"), []string{"friend"}) ||
		a.num(t, "created_at") != float64(p["created_at"].(int64)) {
		t.Errorf("alert %v", a)
	}
	if r := a.num(t, "received_at"); r < float64(before-1000) || r > float64(time.Now().UnixMilli()) {
		t.Errorf("received_at %v", r)
	}

	// Not sent: a post over 60 s old, a post of an unsubscribed handle. The
	// sentinel after them, of the same handle, arrives alone.
	old := s.xgPost(t, h, "stale", 61*time.Second)
	s.xgPost(t, other, "not subscribed", time.Second)
	fresh := s.xgPost(t, h, "fresh", 59*time.Second)
	skipped, _ = w.xgUntil(t, xgIsAlert(fresh["id"].(string)))
	if len(skipped) != 0 {
		t.Errorf("frames before the sentinel: %v (the stale post %s must not come)", skipped, old["id"])
	}
	// Removing the handle from the tracked list ends its subscription.
	s.do(t, "DELETE", "/v1/accounts/"+h, bearer(k.key), nil).wantOK(t, 200)
	s.xgPost(t, h, "after untrack", time.Second)
	sentinel := s.xgPost(t, third, "sentinel", time.Second)
	skipped, _ = w.xgUntil(t, xgIsAlert(sentinel["id"].(string)))
	if len(skipped) != 0 {
		t.Errorf("frames after untrack: %v", skipped)
	}
	// No replay after a reconnect.
	w.Close()
	w2 := s.xgWS(t, k.key)
	w2.SendText(t, `{"type":"subscribe","handles":["`+third+`"]}`)
	w2.xgFrame(t, "ack")
	next := s.xgPost(t, third, "after reconnect", time.Second)
	skipped, _ = w2.xgUntil(t, xgIsAlert(next["id"].(string)))
	if len(skipped) != 0 {
		t.Errorf("replayed frames after reconnect: %v", skipped)
	}
}

// testXGSocketLiveness: the server pings (shortened to 500 ms) and closes a
// client that does not answer within the pong deadline; the 11th inbound
// frame within a second closes with 1008; a client that answers stays.
func testXGSocketLiveness(t *testing.T, s *server) {
	k := s.xgKey(t, "business")
	mute, _, err := xgDial(t, s.wsURL("/v1/ws?api_key="+k.key), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	alive := s.xgWS(t, k.key)
	if code, _, _ := mute.WaitEnd(t, 10*time.Second); code != 0 && code != websocket.CloseGoingAway {
		t.Errorf("silent client closed with %d, want 1001 or a dropped connection", code)
	}
	// The answering client outlived several ping rounds.
	alive.SendText(t, `{"type":"ping"}`)
	if got := string(alive.Next(t)); got != `{"type":"pong"}` {
		t.Errorf("live client: %s", got)
	}

	flood := s.xgWS(t, k.key)
	for range 11 {
		if err := flood.TrySendText(`{"type":"ping"}`); err != nil {
			break
		}
	}
	code, _, frames := flood.WaitEnd(t, 10*time.Second)
	if code != websocket.ClosePolicyViolation {
		t.Errorf("flood closed with %d, want 1008", code)
	}
	if len(frames) > 10 {
		t.Errorf("%d answers to a flood of 11 frames, want at most 10", len(frames))
	}
}

// xgCookieHeader is a request header carrying the session cookie.
func xgCookieHeader(tok string) http.Header {
	return http.Header{"Cookie": []string{"xg_session=" + tok}}
}
