package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned (wrapped) when a webhook URL resolves to,
// or a connection would reach, an address that webhooks may not reach.
var ErrForbiddenAddress = errors.New("private, loopback, link-local, multicast or unspecified address")

// Guard decides which addresses webhook deliveries may reach: every public
// unicast address, and nothing private, loopback, link-local, multicast,
// unspecified or otherwise reserved, unless an allow prefix covers it
// (--webhook-allow-cidrs). It checks URLs at registration and every
// connection when it dials, after DNS resolution, so a name that resolves to
// a public address at registration and a private one later (DNS rebinding)
// still cannot reach the private one.
type Guard struct {
	Allow []netip.Prefix
	// Resolver resolves host names (nil: net.DefaultResolver).
	Resolver *net.Resolver
}

// NewGuard parses allow CIDRs ("127.0.0.0/8", "fd00::/8").
func NewGuard(allowCIDRs []string) (*Guard, error) {
	g := &Guard{}
	for _, c := range allowCIDRs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return nil, fmt.Errorf("webhook allow CIDR %q: %w", c, err)
		}
		g.Allow = append(g.Allow, p.Masked())
	}
	return g, nil
}

// refused are ranges no webhook reaches unless allowed: RFC 6890 special
// purpose blocks that are not global unicast.
var refused = mustPrefixes(
	"0.0.0.0/8",       // "this network", unspecified
	"10.0.0.0/8",      // private
	"100.64.0.0/10",   // shared address space (carrier NAT)
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local (cloud metadata lives here)
	"172.16.0.0/12",   // private
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // documentation
	"192.168.0.0/16",  // private
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation
	"203.0.113.0/24",  // documentation
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, broadcast
	"::/128",          // unspecified
	"::1/128",         // loopback
	"::/96",           // IPv4-compatible (deprecated)
	"100::/64",        // discard
	"2001:db8::/32",   // documentation
	"fc00::/7",        // unique local (private)
	"fe80::/10",       // link-local
	"fec0::/10",       // site-local (deprecated)
	"ff00::/8",        // multicast
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Allowed reports whether a delivery may connect to ip.
func (g *Guard) Allowed(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.WithZone("")
	for _, p := range g.Allow {
		if p.Contains(ip) || (ip.Is4In6() && p.Contains(ip.Unmap())) {
			return true
		}
	}
	return publicUnicast(ip)
}

// publicUnicast is the default rule: no refused range, also when an IPv4
// address hides inside IPv6 (mapped, NAT64, 6to4, Teredo).
func publicUnicast(ip netip.Addr) bool {
	if ip.Is4In6() {
		return publicUnicast(ip.Unmap())
	}
	if ip.Is6() {
		if v4, ok := embeddedV4(ip); ok && !publicUnicast(v4) {
			return false
		}
	}
	for _, p := range refused {
		if p.Contains(ip) {
			return false
		}
	}
	return ip.IsGlobalUnicast()
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	nat64Loc  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour = netip.MustParsePrefix("2002::/16")
	teredo    = netip.MustParsePrefix("2001::/32")
)

// embeddedV4 extracts the IPv4 address that translation prefixes carry.
func embeddedV4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case nat64.Contains(ip), nat64Loc.Contains(ip):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case teredo.Contains(ip): // the client address is stored inverted
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}

// CheckURL validates a webhook URL at registration: http or https, a host,
// no credentials, and every address the host resolves to allowed. It
// returns the URL in normal form.
func (g *Guard) CheckURL(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", errors.New("url is not a valid URI")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", errors.New("url must use http or https")
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return "", errors.New("url must have a host")
	}
	if u.User != nil {
		return "", errors.New("url must not carry credentials")
	}
	if u.Fragment != "" {
		u.Fragment = ""
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		r := g.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		addrs, err = r.LookupNetIP(rctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return "", fmt.Errorf("url host %q does not resolve", host)
		}
	}
	for _, a := range addrs {
		if !g.Allowed(a) {
			return "", fmt.Errorf("url host %q: %w", host, ErrForbiddenAddress)
		}
	}
	return u.String(), nil
}

// Control is a net.Dialer Control function: it runs after resolution, on the
// address the socket is about to connect to, and refuses forbidden ones.
func (g *Guard) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook dial %q: %w", address, ErrForbiddenAddress)
	}
	if !g.Allowed(ap.Addr()) {
		return fmt.Errorf("webhook dial %s: %w", ap.Addr(), ErrForbiddenAddress)
	}
	return nil
}

// Dialer returns a dialer whose every connection passes Control.
func (g *Guard) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: g.Control}
}
