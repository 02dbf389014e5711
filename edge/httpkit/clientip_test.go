package httpkit

import (
	"net"
	"net/netip"
	"testing"

	"github.com/valyala/fasthttp"
)

func TestClientIP(t *testing.T) {
	k := New(Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}})
	for _, c := range []struct {
		peer, xff, xreal, want string
	}{
		{"192.0.2.1", "203.0.113.5", "", "192.0.2.1"},                     // untrusted peer: headers ignored
		{"10.1.1.1", "203.0.113.5", "", "203.0.113.5"},                    // trusted proxy
		{"10.1.1.1", "6.6.6.6, 203.0.113.5, 10.2.2.2", "", "203.0.113.5"}, // rightmost untrusted hop
		{"10.1.1.1", "10.2.2.2, 10.3.3.3", "", "10.1.1.1"},                // proxies all the way: the peer
		{"10.1.1.1", "garbage, 203.0.113.5", "", "203.0.113.5"},
		{"10.1.1.1", "203.0.113.5, garbage", "", "10.1.1.1"}, // unreadable hop: trust nothing left of it
		{"10.1.1.1", "", "198.51.100.4", "198.51.100.4"},     // X-Real-IP
		{"10.1.1.1", "", "nope", "10.1.1.1"},
		{"fd00::1", "2001:db8::7", "", "2001:db8::7"},
		{"10.1.1.1", "::ffff:203.0.113.5", "", "203.0.113.5"},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Init(&fasthttp.Request{}, &net.TCPAddr{IP: net.ParseIP(c.peer), Port: 1234}, nil)
		if c.xff != "" {
			ctx.Request.Header.Set("X-Forwarded-For", c.xff)
		}
		if c.xreal != "" {
			ctx.Request.Header.Set("X-Real-IP", c.xreal)
		}
		if got := k.ClientIP(&ctx); got.String() != c.want {
			t.Errorf("peer %s XFF %q X-Real-IP %q: %s, want %s", c.peer, c.xff, c.xreal, got, c.want)
		}
	}
}
