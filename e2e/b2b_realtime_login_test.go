package e2e

// Realtime WebSocket end to end: HELLO, LOGIN forms, READY, heartbeats and
// every DISCONNECT of spec 2's table, over real sockets.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/gorilla/websocket"
)

// TestB2BRealtime runs the realtime suite against one server per store.
// Subtests use their own accounts, handles and source addresses.
func TestB2BRealtime(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: realtimeMain})
		for _, c := range []struct {
			name string
			f    func(*testing.T, *server)
		}{
			{"HelloLoginReady", testRTHelloLoginReady},
			{"KeyRefusals", testRTKeyRefusals},
			{"KeyBlocked", testRTKeyBlocked},
			{"IPBlocked", testRTIPBlocked},
			{"LoginInvalid", testRTLoginInvalid},
			{"BinaryBeforeLogin", testRTBinaryBeforeLogin},
			{"TooManyConnections", testRTTooManyConnections},
			{"SubscriptionExpired", testRTSubscriptionExpired},
			{"KeyRevokedWhileConnected", testRTKeyRevokedWhileConnected},
			{"PostEvents", testRTPostEvents},
			{"PostUpdate", testRTPostUpdate},
			{"Deleted", testRTDeleted},
			{"FollowsAndFollowers", testRTFollowsAndFollowers},
			{"ProfileUpdates", testRTProfileUpdates},
			{"Rename", testRTRename},
			{"ModuleGating", testRTModuleGating},
			{"FilterOnlyCAAndTicker", testRTFilterOnlyCAAndTicker},
			{"FilterTypes", testRTFilterTypes},
			{"FilterCategories", testRTFilterCategories},
			{"LateDelivery", testRTLateDelivery},
			{"PostReplay", testRTPostReplay},
			{"FollowReplay", testRTFollowReplay},
			{"TargetChanges", testRTTargetChanges},
			{"TweetOnly", testRTTweetOnly},
			{"NoLeftovers", testRTNoLeftovers}, // last: every socket above is closed
		} {
			t.Run(c.name, func(t *testing.T) { c.f(t, s) })
		}
	})
}

// TestB2BRealtimeTimeouts runs the tests that need short liveness limits.
func TestB2BRealtimeTimeouts(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: realtimeShort})
		// Independent accounts: they wait side by side.
		for name, f := range map[string]func(*testing.T, *server){
			"LoginTimeout": testRTLoginTimeout, "HeartbeatTimeout": testRTHeartbeatTimeout,
			"InboundSilence": testRTInboundSilence, "HeartbeatsKeepAlive": testRTHeartbeatsKeepAlive,
		} {
			t.Run(name, func(t *testing.T) { t.Parallel(); f(t, s) })
		}
	})
}

func testRTHelloLoginReady(t *testing.T, s *server) {
	h1, h2 := newHandle("rt_login"), newHandle("rt_login")
	ent := s.newDT(t, "enterprise", jsonMap{"max_handles": 7, "late_delivery": true, "ca_search_daily_limit": 1000}, h1, h2)
	pro := s.newDT(t, "pro", nil, h1)

	// d as a string.
	w, ready := s.rtLogin(t, ent.key)
	wantModules(t, ready, "realtime", "follows", "profile_watch", "followers", "late_delivery", "ca_search")
	if ready.num(t, "handles") != 2 || ready.num(t, "max_handles") != 7 {
		t.Errorf("READY %v: want handles 2, max_handles 7", ready)
	}
	// HEARTBEAT gets exactly {"op":11}, and again.
	for i := 0; i < 2; i++ {
		w.SendText(t, `{"op":1}`)
		if got := string(w.Next(t)); got != `{"op":11}` {
			t.Fatalf("HEARTBEAT answered %s, want {\"op\":11}", got)
		}
	}
	w.SendText(t, `{"op":1,"d":null}`)
	if got := string(w.Next(t)); got != `{"op":11}` {
		t.Fatalf("HEARTBEAT with d null answered %s", got)
	}
	first := ready.num(t, "client_id")

	// d as an object with api_key and filters; and with the apiKey alias.
	_, ready2 := s.rtLogin(t, jsonMap{"api_key": pro.key, "onlyCA": false, "types": []string{"Tweet", "update_bio"}, "categories": []string{"All"}})
	wantModules(t, ready2, "realtime", "profile_watch", "followers")
	if ready2.num(t, "handles") != 1 {
		t.Errorf("pro READY handles %v, want 1", ready2.num(t, "handles"))
	}
	_, ready3 := s.rtLogin(t, jsonMap{"apiKey": pro.key, "onlyTicker": true})
	if ready2.num(t, "client_id") == first || ready3.num(t, "client_id") == ready2.num(t, "client_id") {
		t.Errorf("client ids not distinct: %v %v %v", first, ready2.num(t, "client_id"), ready3.num(t, "client_id"))
	}
	// Whitespace around the key and op written as 2.0 are fine.
	w4 := s.rtDial(t, "")
	w4.SendText(t, `{"op":2.0,"d":"  `+pro.key+`  "}`)
	w4.ready(t)
	// A starter key: realtime only, no late_delivery, no ca_search.
	st := s.newDT(t, "starter", nil)
	_, ready5 := s.rtLogin(t, st.key)
	wantModules(t, ready5, "realtime")
	if ready5.num(t, "handles") != 0 {
		t.Errorf("starter with no targets: READY handles %v", ready5.num(t, "handles"))
	}
}

func wantModules(t *testing.T, ready obj, want ...string) {
	t.Helper()
	got := ready.strings(t, "modules")
	if len(got) != len(want) {
		t.Errorf("READY modules %v, want %v", got, want)
		return
	}
	for _, m := range want {
		if !contains(got, m) {
			t.Errorf("READY modules %v lack %q", got, m)
		}
	}
}

var attemptsLeft = regexp.MustCompile(`(\d+) attempts? left`)

// testRTKeyRefusals: every key_* code from one address, each failure
// counting down the attempts left; the fifth blocks the address.
func testRTKeyRefusals(t *testing.T, s *server) {
	ip := testkit.FreshIP()
	expired := s.newDT(t, "pro", jsonMap{"expires_at": "2023-01-02T03:04:05Z"})
	gone := s.newDT(t, "pro", nil)
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+gone.key, nil).wantOK(t, 200)
	// An expiry set in the past with PATCH answers key_expired too.
	patched := s.newDT(t, "pro", nil)
	s.patch(t, patched.account, "dt", jsonMap{"expires_at": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}).wantOK(t, 200)

	cases := []struct {
		login any
		code  string
	}{
		{"", "key_missing"},
		{"cw_" + testkit.RandomHex(20), "key_malformed"},
		{"dt_" + testkit.RandomHex(20), "key_unknown"},
		{jsonMap{"api_key": expired.key}, "key_expired"},
		{jsonMap{"apiKey": gone.key}, "key_deactivated"},
	}
	for i, c := range cases {
		w := s.rtDial(t, ip)
		w.SendText(t, loginJSON(t, c.login))
		d := w.disconnect(t, c.code)
		msg := d.str(t, "message")
		if i < len(cases)-1 {
			m := attemptsLeft.FindStringSubmatch(msg)
			if m == nil || m[1] != strconv.Itoa(4-i) {
				t.Errorf("failure %d (%s): message %q does not say %d attempts left", i+1, c.code, msg, 4-i)
			}
		} else if !strings.Contains(msg, "blocked") {
			t.Errorf("fifth failure: message %q does not say the address is now blocked", msg)
		}
		if c.code == "key_expired" && !strings.Contains(msg, "2023-01-02") {
			t.Errorf("key_expired message %q does not name the expiry date", msg)
		}
	}
	// The PATCHed key is refused as expired (from another address: this one
	// is blocked now).
	w := s.rtDial(t, testkit.FreshIP())
	w.SendText(t, loginJSON(t, patched.key))
	w.disconnect(t, "key_expired")
	// {"op":2,"d":{}} is a well-formed LOGIN without a key.
	w = s.rtDial(t, testkit.FreshIP())
	w.SendText(t, `{"op":2,"d":{}}`)
	w.disconnect(t, "key_missing")
	w = s.rtDial(t, testkit.FreshIP())
	w.SendText(t, `{"op":2,"d":{"api_key":"   "}}`)
	w.disconnect(t, "key_missing")
}

// testRTKeyBlocked: five failed logins with one key from one address block
// the key; from another address the key gets key_blocked with retry_after,
// while that address can still log in with a good key.
func testRTKeyBlocked(t *testing.T, s *server) {
	ip1, ip2 := testkit.FreshIP(), testkit.FreshIP()
	bad := s.newDT(t, "pro", jsonMap{"expires_at": "2024-05-05T00:00:00Z"})
	for i := 0; i < 5; i++ {
		w := s.rtDial(t, ip1)
		w.SendText(t, loginJSON(t, bad.key))
		w.disconnect(t, "key_expired")
	}
	w := s.rtDial(t, ip2)
	w.SendText(t, loginJSON(t, jsonMap{"api_key": bad.key}))
	d := w.disconnect(t, "key_blocked")
	if ra := d.num(t, "retry_after"); ra < 3000 || ra > 3600 {
		t.Errorf("key_blocked retry_after %v, want about an hour (IPBlock)", ra)
	}
	// Key blocks do not count as failures of ip2: it logs in with a good key.
	good := s.newDT(t, "starter", nil)
	w = s.rtDial(t, ip2)
	w.SendText(t, loginJSON(t, good.key))
	w.ready(t)
	// The tweet-only socket refuses the blocked key too, before the upgrade.
	_, r, err := dialFrom(t, s.wsURL("/v1/dt/ws?api_key="+bad.key), testkit.FreshIP())
	if err == nil || r == nil || r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
		t.Errorf("tweet-only socket with a blocked key: %v %s, want 429 with Retry-After", err, testkit.ResponseText(r))
	}
}

// testRTIPBlocked: five failed logins from one address within the window
// block it on every B2B WebSocket URL: 429 with a JSON body and Retry-After,
// and about once per BlockedAcceptEvery (1 s here) one realtime connection
// accepted just to deliver DISCONNECT ip_blocked. Other addresses are fine.
func testRTIPBlocked(t *testing.T, s *server) {
	ip := testkit.FreshIP()
	for i := 0; i < 5; i++ {
		w := s.rtDial(t, ip)
		w.SendText(t, loginJSON(t, "dt_"+testkit.RandomHex(20))) // a different unknown key each time
		d := w.disconnect(t, "key_unknown")
		if i == 4 && !strings.Contains(d.str(t, "message"), "blocked") {
			t.Errorf("fifth failure message %q", d.str(t, "message"))
		}
	}
	good := s.newDT(t, "pro", nil)

	// Within a few accept intervals we see both answers: the 429 and the
	// one accepted connection with DISCONNECT (no HELLO before it).
	saw429, sawDisconnect := false, false
	testkit.WaitFor(t, 15*time.Second, "a 429 and the accepted DISCONNECT", func() (bool, string) {
		w, r, err := dialFrom(t, s.wsURL("/v1/dt/realtime/ws"), ip)
		if err != nil {
			if r == nil {
				t.Fatalf("dial from blocked ip: %v", err)
			}
			wantIPBlocked429(t, r)
			saw429 = true
			return saw429 && sawDisconnect, "429"
		}
		f := w.nextOp(t, 3)
		wantDisconnect(t, f.object(t, "d"), "ip_blocked")
		if ra := f.object(t, "d").num(t, "retry_after"); ra < 3000 || ra > 3600 {
			t.Errorf("ip_blocked retry_after %v, want about an hour", ra)
		}
		if _, _, extra := w.WaitEnd(t, testkit.FrameWait); len(extra) > 0 {
			t.Errorf("frames after DISCONNECT ip_blocked: %q", extra)
		}
		sawDisconnect = true
		return saw429 && sawDisconnect, "the accepted DISCONNECT"
	})
	// The other B2B sockets refuse it too, even with a good key.
	for _, path := range []string{"/v1/dt/ws?api_key=" + good.key, "/social/tweet/websocket?api_key=" + good.key} {
		_, r, err := dialFrom(t, s.wsURL(path), ip)
		if err == nil || r == nil {
			t.Fatalf("%s from a blocked address: upgraded", path)
		}
		wantIPBlocked429(t, r)
	}
	// Retrying does not extend the block: Retry-After does not grow.
	_, r1, _ := dialFrom(t, s.wsURL("/v1/dt/ws?api_key="+good.key), ip)
	ra1, _ := strconv.Atoi(r1.Header.Get("Retry-After"))
	for i := 0; i < 3; i++ {
		dialFrom(t, s.wsURL("/v1/dt/ws?api_key=x"), ip)
	}
	_, r2, _ := dialFrom(t, s.wsURL("/v1/dt/ws?api_key="+good.key), ip)
	if ra2, _ := strconv.Atoi(r2.Header.Get("Retry-After")); ra2 > ra1 {
		t.Errorf("Retry-After grew from %d to %d after retries: retrying extended the block", ra1, ra2)
	}
	// Another address is unaffected, with the same good key.
	w := s.rtDial(t, testkit.FreshIP())
	w.SendText(t, loginJSON(t, good.key))
	w.ready(t)
}

func wantIPBlocked429(t *testing.T, r *http.Response) {
	t.Helper()
	body := testkit.ResponseText(r)
	if r.StatusCode != 429 {
		t.Fatalf("blocked address: %s, want 429", body)
	}
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > 3600 {
		t.Errorf("Retry-After %q, want seconds up to an hour", r.Header.Get("Retry-After"))
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("429 Content-Type %q, want JSON", ct)
	}
	_, b, _ := strings.Cut(body, " 429 ")
	var o map[string]any
	if err := json.Unmarshal([]byte(b), &o); err != nil {
		t.Fatalf("429 body is not JSON: %s", body)
	}
	if o["code"] != "ip_blocked" {
		t.Errorf("429 body code %v, want ip_blocked: %s", o["code"], body)
	}
	unblock := false
	for _, v := range o {
		if s, ok := v.(string); ok {
			if at, err := time.Parse(time.RFC3339, s); err == nil && at.After(time.Now()) {
				unblock = true
			}
		}
	}
	if !unblock {
		t.Errorf("429 body does not name the unblock time: %s", body)
	}
}

func testRTLoginInvalid(t *testing.T, s *server) {
	good := s.newDT(t, "pro", nil)
	ip := testkit.FreshIP()
	for _, msg := range []string{
		`{"op":"2","d":"` + good.key + `"}`,
		`{"op":3,"d":"` + good.key + `"}`,
		`{"op":1}`, // a HEARTBEAT before LOGIN
		`{"d":"` + good.key + `"}`,
		`garbage`,
		`{}`,
		`[]`,
		`{"op":2,"d":42}`,
		`{"op":2,"d":{"api_key":"` + good.key + `","types":"tweet"}}`,
		`{"op":2,"d":{"api_key":"` + good.key + `","onlyCA":"yes"}}`,
	} {
		w := s.rtDial(t, ip)
		w.SendText(t, msg)
		w.disconnect(t, "login_invalid")
	}
	// Ten invalid payloads are not failed logins: the address is not blocked.
	w := s.rtDial(t, ip)
	w.SendText(t, loginJSON(t, good.key))
	w.ready(t)
}

func testRTBinaryBeforeLogin(t *testing.T, s *server) {
	good := s.newDT(t, "pro", nil)
	w := s.rtDial(t, "")
	w.SendBinary(t, []byte(loginJSON(t, good.key)))
	w.disconnect(t, "login_timeout")
}

// testRTTooManyConnections: five sockets per account across the three B2B
// URLs; the sixth is refused; closing one frees a slot.
func testRTTooManyConnections(t *testing.T, s *server) {
	a := s.newDT(t, "pro", nil, newHandle("rt_conn"))
	other := s.newDT(t, "pro", nil)
	rt1, _ := s.rtLogin(t, a.key)
	s.rtLogin(t, a.key)
	tweetDial(t, s, "/v1/dt/ws", a.key)
	tweetDial(t, s, "/v1/dt/ws", a.key)
	tweetDial(t, s, "/social/tweet/websocket", a.key)

	w := s.rtDial(t, "")
	w.SendText(t, loginJSON(t, a.key))
	w.disconnect(t, "too_many_connections")
	for _, path := range []string{"/v1/dt/ws", "/social/tweet/websocket"} {
		_, r, err := dialFrom(t, s.wsURL(path+"?api_key="+a.key), "")
		if err == nil || r == nil || r.StatusCode != 429 {
			t.Errorf("sixth socket on %s: %v %s, want 429", path, err, testkit.ResponseText(r))
		}
	}
	// Another account is not limited by this one.
	s.rtLogin(t, other.key)

	// A closed socket frees its slot.
	rt1.CloseGracefully()
	testkit.WaitFor(t, 10*time.Second, "slot freed after a close", func() (bool, string) {
		w := s.rtDial(t, "")
		w.SendText(t, loginJSON(t, a.key))
		f := decodeObj(t, w.Next(t), "login answer")
		if f.num(t, "op") == 4 {
			return true, ""
		}
		w.Close()
		return false, fmt.Sprint(f)
	})
}

// tweetDial opens a tweet-only socket and asserts the greeting.
func tweetDial(t *testing.T, s *server, path, key string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL(path+"?api_key="+key), "")
	if err != nil {
		t.Fatalf("dial %s: %v %s", path, err, testkit.ResponseText(r))
	}
	if got := string(w.Next(t)); got != `{"event_type":"connected"}` {
		t.Fatalf("%s greeting %s", path, got)
	}
	return w
}

// testRTSubscriptionExpired: a subscription whose end passes while the
// socket is open ends it with subscription_expired; so does an end date
// moved near by the operator while connected (seen at the next heartbeat).
func testRTSubscriptionExpired(t *testing.T, s *server) {
	// The three cases wait side by side.
	t.Run("EndPasses", func(t *testing.T) { t.Parallel(); testRTExpiryPasses(t, s) })
	t.Run("EndMovedNear", func(t *testing.T) { t.Parallel(); testRTExpiryMovedNear(t, s) })
	t.Run("EndMovedAway", func(t *testing.T) { t.Parallel(); testRTExpiryMovedAway(t, s) })
}

func testRTExpiryPasses(t *testing.T, s *server) {
	end := time.Now().Add(2500 * time.Millisecond).UTC().Truncate(time.Second).Add(time.Second)
	a := s.newDT(t, "pro", jsonMap{"expires_at": end.Format(time.RFC3339)})
	w, _ := s.rtLogin(t, a.key)
	d := w.disconnect(t, "subscription_expired")
	if !strings.Contains(d.str(t, "message"), end.Format("2006-01-02")) {
		t.Errorf("message %q does not name the end date", d.str(t, "message"))
	}
}

func testRTExpiryMovedNear(t *testing.T, s *server) {
	b := s.newDT(t, "pro", nil)
	w, _ := s.rtLogin(t, b.key)
	end := time.Now().Add(1500 * time.Millisecond).UTC().Truncate(time.Second).Add(time.Second)
	s.patch(t, b.account, "dt", jsonMap{"expires_at": end.Format(time.RFC3339)}).wantOK(t, 200)
	if got := w.heartbeat(t); len(got) != 0 {
		t.Errorf("frames before the ACK: %q", got)
	}
	w.disconnect(t, "subscription_expired")
}

// testRTExpiryMovedAway: moving the end date away while connected keeps the
// socket: the heartbeat that re-reads the subscription is answered and
// nothing else comes. (That the timer armed for the old end date then does
// nothing is the session's unit test, TestRealtimeExpiry, on a fake clock.)
func testRTExpiryMovedAway(t *testing.T, s *server) {
	c := s.newDT(t, "pro", jsonMap{"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	w, _ := s.rtLogin(t, c.key)
	s.patch(t, c.account, "dt", jsonMap{"expires_at": nil}).wantOK(t, 200)
	for range 2 { // the first heartbeat re-reads the subscription, the second shows what followed
		if got := w.heartbeat(t); len(got) != 0 {
			t.Errorf("renewed subscription got %q", got)
		}
	}
}

// testRTKeyRevokedWhileConnected: a key deactivated while its socket is
// open stops at the next heartbeat with key_deactivated.
func testRTKeyRevokedWhileConnected(t *testing.T, s *server) {
	a := s.newDT(t, "pro", nil)
	w, _ := s.rtLogin(t, a.key)
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+a.key, nil).wantOK(t, 200)
	w.heartbeat(t)
	w.disconnect(t, "key_deactivated")
}

func testRTLoginTimeout(t *testing.T, s *server) {
	w := s.rtDial(t, "")
	d := w.disconnect(t, "login_timeout") // LoginWindow is 2 s here
	if d.str(t, "message") == "" {
		t.Error("empty message")
	}
	// A LOGIN in time works on this server.
	a := s.newDT(t, "starter", nil)
	s.rtLogin(t, a.key)
}

// testRTHeartbeatTimeout: a logged-in socket that sends bytes (pings) but
// no HEARTBEAT is closed HeartbeatTimeout after READY, with no DISCONNECT.
func testRTHeartbeatTimeout(t *testing.T, s *server) {
	a := s.newDT(t, "starter", nil)
	w, _ := s.rtLogin(t, a.key)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tk := time.NewTicker(200 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				if w.Ping() != nil {
					return
				}
			}
		}
	}()
	code, text, frames := w.WaitEnd(t, 20*time.Second)
	if len(frames) > 0 {
		t.Errorf("frames before the close: %q (no DISCONNECT expected)", frames)
	}
	if text != "heartbeat timeout" {
		t.Errorf("closed with %d %q, want the heartbeat timeout close", code, text)
	}
}

// testRTInboundSilence: a logged-in socket that sends nothing is closed
// after InboundSilence (shorter than HeartbeatTimeout here), no DISCONNECT.
func testRTInboundSilence(t *testing.T, s *server) {
	a := s.newDT(t, "starter", nil)
	w, _ := s.rtLogin(t, a.key)
	code, text, frames := w.WaitEnd(t, 20*time.Second)
	if len(frames) > 0 {
		t.Errorf("frames before the close: %q", frames)
	}
	if code != websocket.CloseGoingAway || text != "idle timeout" {
		t.Errorf("closed with %d %q, want 1001 idle timeout", code, text)
	}
}

// testRTHeartbeatsKeepAlive: HEARTBEATs keep a socket open well past both
// limits.
func testRTHeartbeatsKeepAlive(t *testing.T, s *server) {
	a := s.newDT(t, "starter", nil)
	w, _ := s.rtLogin(t, a.key)
	until := time.Now().Add(8 * time.Second) // > HeartbeatTimeout 6 s and silence 3 s
	for time.Now().Before(until) {
		if got := w.heartbeat(t); len(got) != 0 {
			t.Fatalf("unexpected frames %q", got)
		}
		time.Sleep(200 * time.Millisecond) // paces the heartbeats; each ACK shows the socket open
	}
}
