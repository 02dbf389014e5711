package edge

import (
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// ipLimit caps the connections open from one peer address at accept: one
// over the cap is closed at once, before fasthttp reads a byte. Trusted
// proxies are not capped (every client behind them shares their address).
// fasthttp's own MaxConnsPerIP is not used: in v1.74.0 its wrapper races
// with Shutdown (perIPConn.Close against Read).
type ipLimit struct {
	net.Listener
	max     int
	trusted func(netip.Addr) bool

	mu   sync.Mutex // guards open
	open map[netip.Addr]int
}

func newIPLimit(ln net.Listener, max int, trusted func(netip.Addr) bool) *ipLimit {
	return &ipLimit{Listener: ln, max: max, trusted: trusted, open: map[netip.Addr]int{}}
}

// Accept returns the next connection within its address's cap.
func (l *ipLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := addrIP(c.RemoteAddr())
		if l.trusted(ip) {
			return &ipConn{Conn: c, ip: ip}, nil // not counted
		}
		l.mu.Lock()
		if l.open[ip] >= l.max {
			l.mu.Unlock()
			_ = c.Close()
			continue
		}
		l.open[ip]++
		l.mu.Unlock()
		// The field is named Conn: edge/ws finds the socket under it.
		return &ipConn{Conn: c, l: l, ip: ip}, nil
	}
}

func (l *ipLimit) release(ip netip.Addr) {
	l.mu.Lock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
	l.mu.Unlock()
}

// ipConn gives its place back once, at its first Close (l is nil for a
// trusted proxy's, which is not counted).
type ipConn struct {
	net.Conn
	l      *ipLimit
	ip     netip.Addr
	closed atomic.Bool
	linger atomic.Bool
}

// A lingering close reads what the peer still sends, for at most
// lingerFor and lingerBytes, before closing.
const (
	lingerFor   = time.Second
	lingerBytes = 1 << 20
)

// Linger makes Close linger: the server refused a request from its header
// (413, 431) and the client may still be sending the body. Closing with
// those bytes unread would reset the connection, and a reset can destroy
// the refusal in the client's receive buffer before it reads it.
func (c *ipConn) Linger() { c.linger.Store(true) }

func (c *ipConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		if c.linger.Load() {
			c.drain()
		}
		if c.l != nil {
			c.l.release(c.ip)
		}
	}
	return c.Conn.Close()
}

// drain half-closes (the answer is written; the client sees its end) and
// drops what arrives, through io.Discard's small pooled buffer: nothing is
// allocated for the refused body.
func (c *ipConn) drain() {
	if hc, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	_ = c.Conn.SetReadDeadline(time.Now().Add(lingerFor))
	_, _ = io.CopyN(io.Discard, c.Conn, lingerBytes)
}

func addrIP(a net.Addr) netip.Addr {
	if t, ok := a.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(t.IP)
		return ip.Unmap()
	}
	return netip.Addr{}
}
