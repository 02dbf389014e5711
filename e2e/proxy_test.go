package e2e

import (
	"net/http"
	"testing"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

// TestTrustedProxies: the IP block counts the client a trusted proxy names
// (the rightmost untrusted X-Forwarded-For hop, or X-Real-IP), not the
// proxy; a peer that is not a trusted proxy is counted itself, whatever it
// claims; IPv6 clients are counted per /64 (CONTRACT section 6).
func TestTrustedProxies(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		proxy := testkit.FreshIP()
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: func(c *engine.Config) {
			c.TrustedProxies = []string{proxy + "/32"}
		}})
		// fail makes five failed logins on the tweet-only socket from peer
		// with headers h.
		fail := func(t *testing.T, from string, h http.Header) {
			t.Helper()
			for range 5 {
				_, r, err := dialWith(t, s.wsURL("/v1/dt/ws?api_key=dt_"+testkit.RandomHex(24)), testkit.DialOptions{From: from, Header: h})
				if err == nil || r == nil || r.StatusCode != 401 {
					t.Fatalf("bad key from %s %v: %v %s", from, h, err, testkit.ResponseText(r))
				}
			}
		}
		// blocked tells whether a good key from peer with headers h is
		// refused with the IP block.
		good := s.newDT(t, "pro", nil)
		blocked := func(t *testing.T, from string, h http.Header) bool {
			t.Helper()
			w, r, err := dialWith(t, s.wsURL("/v1/dt/ws?api_key="+good.key), testkit.DialOptions{From: from, Header: h})
			if err == nil {
				w.Close()
				return false
			}
			if r == nil || r.StatusCode != 429 {
				t.Fatalf("good key from %s %v: %v %s", from, h, err, testkit.ResponseText(r))
			}
			return true
		}
		xff := func(v string) http.Header { return http.Header{"X-Forwarded-For": {v}} }

		t.Run("client behind the proxy", func(t *testing.T) {
			fail(t, proxy, xff("203.0.113.7"))
			if !blocked(t, proxy, xff("198.51.100.1, 203.0.113.7")) { // the client's own claims before it do not matter
				t.Error("the failing client is not blocked")
			}
			if blocked(t, proxy, xff("203.0.113.8")) {
				t.Error("another client of the same proxy is blocked")
			}
			if blocked(t, proxy, http.Header{"X-Real-Ip": {"203.0.113.9"}}) {
				t.Error("a client named by X-Real-IP is blocked")
			}
		})
		t.Run("untrusted peer", func(t *testing.T) {
			peer := testkit.FreshIP()
			fail(t, peer, xff("203.0.113.20"))
			if !blocked(t, peer, xff("203.0.113.21")) {
				t.Error("an untrusted peer escaped its block by naming another client")
			}
			if blocked(t, proxy, xff("203.0.113.20")) {
				t.Error("the address an untrusted peer claimed got blocked")
			}
		})
		t.Run("IPv6 per /64", func(t *testing.T) {
			fail(t, proxy, xff("2001:db8:1:2::1"))
			if !blocked(t, proxy, xff("2001:db8:1:2:ffff::9")) {
				t.Error("another address of the same /64 is not blocked")
			}
			if blocked(t, proxy, xff("2001:db8:1:3::1")) {
				t.Error("an address of another /64 is blocked")
			}
		})
	})
}
