package e2e

// End-to-end tests of the delivery layer: what every socket kind shares
// (the key re-check, the account's target list, the per-account cap, the
// subscription made before the 101), over real sockets.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

// deliveryInterval shortens the re-check interval (the heartbeat interval)
// so that a key's end shows within seconds.
const deliveryInterval = time.Second

// TestE2EDelivery runs the delivery suite against one server per store.
func TestE2EDelivery(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: func(c *engine.Config) {
			c.Timings.HeartbeatInterval = deliveryInterval
		}})
		for _, c := range []struct {
			name string
			f    func(*testing.T, *server)
		}{
			{"KeyEndClosesEverySocket", testDeliveryKeyEnd},
			{"TargetRemovedOnEverySocket", testDeliveryTargetRemoved},
			{"ProductSocketCap", testDeliveryProductCap},
			{"ProductEventRightAfter101", testDeliveryRightAfter101},
		} {
			t.Run(c.name, func(t *testing.T) { c.f(t, s) })
		}
	})
}

// dlRealtime opens /v1/dt/realtime/ws and logs in with key (HELLO announces
// the shortened interval, so rtLogin's byte-for-byte HELLO does not apply).
func (s *server) dlRealtime(t *testing.T, key string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL("/v1/dt/realtime/ws"), "")
	if err != nil {
		t.Fatalf("dial realtime: %v (%s)", err, testkit.ResponseText(r))
	}
	w.nextOp(t, 10)
	w.SendText(t, loginJSON(t, key))
	w.ready(t)
	return w
}

// dlDial opens a socket that authenticates with ?api_key=.
func (s *server) dlDial(t *testing.T, path, key string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL(path+"?api_key="+key), "")
	if err != nil {
		t.Fatalf("dial %s: %v (%s)", path, err, testkit.ResponseText(r))
	}
	return w
}

// dlCookie opens /v1/ws with the dashboard's session cookie, from the
// dashboard's own origin.
func (s *server) dlCookie(t *testing.T, tok string) *wsClient {
	t.Helper()
	h := xgCookieHeader(tok)
	h.Set("Origin", s.base)
	w, r, err := dialWith(t, s.wsURL("/v1/ws"), testkit.DialOptions{Header: h})
	if err != nil {
		t.Fatalf("dial /v1/ws with the cookie: %v (%s)", err, testkit.ResponseText(r))
	}
	return w
}

// dlSocket is one open socket and how it must end.
type dlSocket struct {
	name string
	w    *wsClient
	code string // the DISCONNECT code (realtime) or the close frame's reason
}

// testDeliveryKeyEnd: a key revoked (reissued), deactivated or expired
// closes every kind of socket it opened within the heartbeat interval: the
// realtime socket with DISCONNECT and its code, the others with close 1008
// and the code as reason.
func testDeliveryKeyEnd(t *testing.T, s *server) {
	for _, c := range []struct {
		mode string
		code string
		end  func(t *testing.T, account, product, key string)
	}{
		{"revoked", "key_unknown", func(t *testing.T, account, product, _ string) {
			s.issue(t, map[string]any{"product": product, "account_id": account}) // a new key revokes the old one
		}},
		{"deactivated", "key_deactivated", func(t *testing.T, _, _, key string) {
			s.adminDo(t, "DELETE", "/admin/v1/keys/"+key, nil).wantOK(t, 200)
		}},
		{"expired", "subscription_expired", func(t *testing.T, account, product, _ string) {
			past := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
			s.patch(t, account, product, map[string]any{"expires_at": past}).wantOK(t, 200)
		}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			h := newHandle("dl_end")
			dt := s.newDT(t, "enterprise", nil, h)
			xg := s.issue(t, map[string]any{"product": "xg", "account_id": dt.account, "plan": "pro"})
			tr := s.issue(t, map[string]any{"product": "trend", "account_id": dt.account})
			xdt := s.dlDial(t, "/v1/ws", dt.key)
			xdt.SendText(t, `{"type":"subscribe","handles":["`+h+`"]}`)
			wantFrameType(t, xdt.Next(t), "ack")
			socks := []dlSocket{
				{"realtime", s.dlRealtime(t, dt.key), c.code},
				{"tweet_only", s.dlDial(t, "/v1/dt/ws", dt.key), c.code},
				{"xg with the dt key", xdt, c.code},
				{"xg", s.dlDial(t, "/v1/ws", xg.key), c.code},
				{"xg by the dashboard cookie", s.dlCookie(t, s.xgLogin(t, xg.key)), c.code},
				{"product", s.dlDial(t, "/v1/trending/ws", tr.key), c.code},
			}
			if got := string(socks[1].w.Next(t)); got != `{"event_type":"connected"}` {
				t.Fatalf("tweet-only greeting %s", got)
			}
			ended := time.Now()
			c.end(t, dt.account, "dt", dt.key)
			c.end(t, xg.account, "xg", xg.key)
			c.end(t, tr.account, "trend", tr.key)
			for _, k := range socks {
				code, text, frames := k.w.WaitEnd(t, 3*deliveryInterval+5*time.Second)
				if k.name == "realtime" {
					if len(frames) == 0 {
						t.Fatalf("realtime: closed without DISCONNECT")
					}
					d := decodeObj(t, frames[len(frames)-1], "DISCONNECT")
					if d.num(t, "op") != 3 {
						t.Fatalf("realtime: last frame %s, want DISCONNECT", frames[len(frames)-1])
					}
					wantDisconnect(t, d.object(t, "d"), k.code)
					continue
				}
				if code != 1008 || text != k.code {
					t.Errorf("%s: closed with %d %q, want 1008 %q", k.name, code, text, k.code)
				}
			}
			if took := time.Since(ended); took > 3*deliveryInterval+5*time.Second {
				t.Errorf("sockets closed %v after the keys ended", took)
			}
		})
	}
}

func wantFrameType(t *testing.T, b []byte, typ string) obj {
	t.Helper()
	o := decodeObj(t, b, "frame")
	if got := o.str(t, "type"); got != typ {
		t.Fatalf("frame %s, want type %q", b, typ)
	}
	return o
}

// testDeliveryTargetRemoved: DELETE /v1/dt/targets/{handle} unsubscribes
// the handle on every socket of the account: realtime, tweet-only and
// /v1/ws opened with the dt_ key.
func testDeliveryTargetRemoved(t *testing.T, s *server) {
	h := newHandle("dl_del")
	ref := s.newDT(t, "pro", nil, h)
	wref := s.dlRealtime(t, ref.key)
	a := s.newDT(t, "pro", nil, h)
	rt := s.dlRealtime(t, a.key)
	tw := s.dlDial(t, "/v1/dt/ws", a.key)
	tw.Next(t) // greeting
	xg := s.dlDial(t, "/v1/ws", a.key)
	xg.SendText(t, `{"type":"subscribe","handles":["`+h+`"]}`)
	wantFrameType(t, xg.Next(t), "ack")

	s.removeTarget(t, a.key, h)
	gone := postObs(h, "post", "after the removal")
	s.send(t, gone)
	// Barrier: the handle's actor has published the post (the reference
	// account still watches the handle); a socket still subscribed would
	// have it queued before anything published later.
	if e := wref.nextEvent(t); e.id != "evt_"+gone["id"].(string) {
		t.Fatalf("reference socket got %s", e)
	}
	s.addTarget(t, a.key, h)
	xg.SendText(t, `{"type":"subscribe","handles":["`+h+`"]}`)
	wantFrameType(t, xg.Next(t), "ack")
	back := postObs(h, "post", "watched again")
	s.send(t, back)
	id := back["id"].(string)
	if e := rt.nextEvent(t); e.id != "evt_"+id {
		t.Errorf("realtime: first event after the removal %s, want the post made after re-adding", e)
	}
	if d := decodeObj(t, tw.Next(t), "tweet-only frame").object(t, "data"); d.str(t, "id") != id {
		t.Errorf("tweet-only: first post after the removal %v, want %s", d, id)
	}
	if o := wantFrameType(t, xg.Next(t), "alert"); o.str(t, "tweet_id") != id {
		t.Errorf("/v1/ws: first alert after the removal %v, want %s", o, id)
	}
}

// testDeliveryProductCap: every product socket allows 10 per account and
// product; the 11th gets a plain-text 429 before the upgrade, and a closed
// socket gives its slot back.
func testDeliveryProductCap(t *testing.T, s *server) {
	for _, p := range []struct{ product, segment string }{
		{"cw", "cw"}, {"ct", "ct"}, {"et", "et"}, {"trend", "trending"}, {"pf", "pf"}, {"eca", "eca"}, {"sa", "sa"},
	} {
		t.Run(p.segment, func(t *testing.T) {
			key := s.issue(t, map[string]any{"product": p.product}).key
			other := s.issue(t, map[string]any{"product": p.product}).key
			path := "/v1/" + p.segment + "/ws"
			var socks []*wsClient
			for range 10 {
				socks = append(socks, s.dlDial(t, path, key))
			}
			_, r, err := dialFrom(t, s.wsURL(path+"?api_key="+key), "")
			if err == nil || r == nil || r.StatusCode != 429 {
				t.Fatalf("11th socket: %v (%s), want a 429", err, testkit.ResponseText(r))
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("429 with content type %q, want plain text", ct)
			}
			s.dlDial(t, path, other) // another account is not limited by this one
			socks[0].CloseGracefully()
			testkit.WaitFor(t, 10*time.Second, "a slot back after a close", func() (bool, string) {
				w, r, err := dialFrom(t, s.wsURL(path+"?api_key="+key), "")
				if err != nil {
					return false, testkit.ResponseText(r)
				}
				w.Close()
				return true, ""
			})
		})
	}
}

// testDeliveryRightAfter101: a product socket gets an event published right
// after its client received the 101 (it subscribes before the 101 goes
// out).
func testDeliveryRightAfter101(t *testing.T, s *server) {
	tr := s.issue(t, map[string]any{"product": "trend"}).key
	pf := s.issue(t, map[string]any{"product": "pf"}).key
	wallet := solAddr()
	s.call(t, "POST", "/v1/pf/targets", pf, map[string]any{"wallet_address": wallet}).wantOK(t, 201)
	for i := range 5 {
		w := s.dlDial(t, "/v1/trending/ws", tr)
		o, tw := trendingObs("crypto")
		s.send(t, o)
		if d := streamFrame(t, w.Next(t), "trending_tweet"); d.object(t, "tweet").str(t, "tweet_id") != tw["tweet_id"] {
			t.Fatalf("round %d: trending frame %v", i, d)
		}
		p := s.dlDial(t, "/v1/pf/ws", pf)
		mint := solAddr()
		s.send(t, pfLaunch("token_launched", wallet, mint, fmt.Sprintf("T%d", i)))
		if d := streamFrame(t, p.Next(t), "pf_event"); d.str(t, "mint") != mint {
			t.Fatalf("round %d: pf frame %v", i, d)
		}
		w.Close()
		p.Close()
	}
}
