package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestGuardAllowed(t *testing.T) {
	none, err := NewGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := NewGuard([]string{"127.0.0.0/8", " fd00:1::/32 "})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ip          string
		plain, loop bool
	}{
		{"8.8.8.8", true, true},
		{"1.1.1.1", true, true},
		{"2606:4700:4700::1111", true, true},
		{"0.0.0.0", false, false},
		{"0.1.2.3", false, false},
		{"10.1.2.3", false, false},
		{"100.64.0.1", false, false},
		{"127.0.0.1", false, true},
		{"127.255.255.254", false, true},
		{"169.254.169.254", false, false}, // cloud metadata
		{"172.16.0.1", false, false},
		{"172.31.255.255", false, false},
		{"172.32.0.1", true, true},
		{"192.168.1.1", false, false},
		{"192.0.0.8", false, false},
		{"198.18.0.1", false, false},
		{"224.0.0.1", false, false},
		{"239.255.255.250", false, false},
		{"255.255.255.255", false, false},
		{"::", false, false},
		{"::1", false, false},
		{"::127.0.0.1", false, false}, // IPv4-compatible
		{"::ffff:127.0.0.1", false, true},
		{"::ffff:10.0.0.1", false, false},
		{"::ffff:8.8.8.8", true, true},
		{"fe80::1", false, false},
		{"fe80::1%eth0", false, false},
		{"fc00::1", false, false},
		{"fd00:1::5", false, true},
		{"fd00:2::5", false, false},
		{"ff02::1", false, false},
		{"64:ff9b::a00:1", false, false},           // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", true, true},           // NAT64 of 8.8.8.8
		{"2002:7f00:1::1", false, false},           // 6to4 of 127.0.0.1
		{"2002:808:808::1", true, true},            // 6to4 of 8.8.8.8
		{"2001:0:1:2:3:4:f5ff:fffe", false, false}, // Teredo of 10.0.0.1 (inverted)
		{"2001:db8::1", false, false},
	} {
		ip := netip.MustParseAddr(c.ip)
		if got := none.Allowed(ip); got != c.plain {
			t.Errorf("Allowed(%s) = %v, want %v", c.ip, got, c.plain)
		}
		if got := loop.Allowed(ip); got != c.loop {
			t.Errorf("with allow list: Allowed(%s) = %v, want %v", c.ip, got, c.loop)
		}
	}
	if none.Allowed(netip.Addr{}) {
		t.Errorf("the zero address is allowed")
	}
	if _, err := NewGuard([]string{"not-a-cidr"}); err == nil {
		t.Errorf("NewGuard accepted a bad CIDR")
	}
}

func TestGuardCheckURL(t *testing.T) {
	g, _ := NewGuard(nil)
	allow, _ := NewGuard([]string{"127.0.0.0/8", "::1/128"})
	ctx := context.Background()
	for _, c := range []struct {
		url   string
		g     *Guard
		ok    bool
		wants string // part of the error
	}{
		{"https://8.8.8.8/hook", g, true, ""},
		{"http://8.8.8.8:8080/hook?x=1#frag", g, true, ""},
		{"ftp://8.8.8.8/", g, false, "http or https"},
		{"//8.8.8.8/", g, false, "http or https"},
		{"https:///path", g, false, "host"},
		{"https://user:pw@8.8.8.8/", g, false, "credentials"},
		{"http://127.0.0.1:9/", g, false, "private"},
		{"http://127.0.0.1:9/", allow, true, ""},
		{"http://[::1]/", g, false, "private"},
		{"http://[::1]/", allow, true, ""},
		{"http://10.0.0.1/", allow, false, "private"},
		{"http://169.254.169.254/latest/meta-data", g, false, "private"},
		{"http://localhost:8080/", g, false, "private"},
		{"http://localhost:8080/", allow, true, ""},
		{"http://no-such-host.invalid/", g, false, "resolve"},
		{"http://[fe80::1%25eth0]/", g, false, "private"},
		{"::not a url", g, false, ""},
	} {
		got, err := c.g.CheckURL(ctx, c.url)
		if (err == nil) != c.ok {
			t.Errorf("CheckURL(%q) = %q, %v; want ok=%v", c.url, got, err, c.ok)
			continue
		}
		if err != nil && c.wants != "" && !strings.Contains(err.Error(), c.wants) {
			t.Errorf("CheckURL(%q) error %q, want it to mention %q", c.url, err, c.wants)
		}
		if err == nil && strings.Contains(got, "#") {
			t.Errorf("CheckURL(%q) kept the fragment: %q", c.url, got)
		}
	}
}

// TestGuardDial shows the check at connect time: a client built on the
// guard cannot reach a loopback receiver, whatever name led there (so a
// name that resolved to a public address at registration and to a private
// one later gets nowhere), unless the allow list covers it.
func TestGuardDial(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	g, _ := NewGuard(nil)
	for _, u := range []string{srv.URL, "http://localhost:" + port + "/"} {
		r, err := NewClient(g, 2*time.Second).Post(u, "application/json", nil)
		if err == nil {
			r.Body.Close()
		}
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("POST %s through the guard: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
	allow, _ := NewGuard([]string{"127.0.0.0/8"})
	r, err := NewClient(allow, 2*time.Second).Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatalf("allowed POST: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != 204 {
		t.Errorf("status %d", r.StatusCode)
	}
}

func TestSign(t *testing.T) {
	const want = "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
	body := []byte("The quick brown fox jumps over the lazy dog")
	if got := Sign("key", body); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	if !Verify("key", body, want) || Verify("key", body, strings.ToUpper(want)) || Verify("other", body, want) {
		t.Errorf("Verify accepts or refuses the wrong signatures")
	}
}

func TestPolicyBackoff(t *testing.T) {
	p := Policy{Backoff: []time.Duration{time.Second, 2 * time.Second}}
	for done, want := range map[int]time.Duration{0: 0, 1: time.Second, 2: 2 * time.Second, 5: 2 * time.Second} {
		if got := p.backoff(done); got != want {
			t.Errorf("backoff(%d) = %v, want %v", done, got, want)
		}
	}
	if (&Policy{}).backoff(1) != 0 {
		t.Errorf("no backoff list should retry at once")
	}
}
