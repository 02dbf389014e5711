package httpkit

import (
	"bytes"
	"net"
	"net/netip"
	"strings"

	"github.com/valyala/fasthttp"
)

// ClientIP is the address of the client a request comes from, for the IP
// block and logs (CONTRACT section 6): the TCP peer, unless the peer is one
// of Config.TrustedProxies; then the rightmost X-Forwarded-For hop that is
// not a trusted proxy (hops left of it are the client's own claims), or
// X-Real-IP when there is no X-Forwarded-For. Invalid when unknown.
func (k *Kit) ClientIP(ctx *fasthttp.RequestCtx) netip.Addr {
	peer := peerIP(ctx)
	if !k.trusted(peer) {
		return peer
	}
	if xff := ctx.Request.Header.Peek("X-Forwarded-For"); len(xff) > 0 {
		hops := strings.Split(string(xff), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				return peer // a hop we cannot read: trust nothing left of it
			}
			if ip = ip.Unmap(); !k.trusted(ip) {
				return ip
			}
		}
		return peer
	}
	if xr := bytes.TrimSpace(ctx.Request.Header.Peek("X-Real-IP")); len(xr) > 0 {
		if ip, err := netip.ParseAddr(string(xr)); err == nil {
			return ip.Unmap()
		}
	}
	return peer
}

// TrustedProxy reports whether ip is one of Config.TrustedProxies.
func (k *Kit) TrustedProxy(ip netip.Addr) bool { return k.trusted(ip) }

func (k *Kit) trusted(ip netip.Addr) bool {
	for _, p := range k.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// peerIP is the TCP peer's address.
func peerIP(ctx *fasthttp.RequestCtx) netip.Addr {
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(a.IP)
		return ip.Unmap()
	}
	ap, err := netip.ParseAddrPort(ctx.RemoteAddr().String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}
