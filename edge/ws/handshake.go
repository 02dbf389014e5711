package ws

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"net"
	"reflect"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/valyala/fasthttp"
)

const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// pendingUpgrades are the upgrades accepted by Upgrade whose connection
// fasthttp has not handed over yet, by fasthttp's connection. Exactly one of
// the hijack and ConnState takes each.
type pendingUpgrades struct {
	n  atomic.Int32
	mu sync.Mutex
	m  map[net.Conn]Handler
}

func (p *pendingUpgrades) add(c net.Conn, h Handler) {
	p.mu.Lock()
	if p.m == nil {
		p.m = map[net.Conn]Handler{}
	}
	p.m[c] = h
	p.n.Store(int32(len(p.m)))
	p.mu.Unlock()
}

// take removes and returns the upgrade pending on c (nil if none).
func (p *pendingUpgrades) take(c net.Conn) Handler {
	if p.n.Load() == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.m[c]
	if ok {
		delete(p.m, c)
		p.n.Store(int32(len(p.m)))
	}
	return h
}

func plain(ctx *fasthttp.RequestCtx, status int, msg string) {
	ctx.SetStatusCode(status)
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(msg)
}

// checkHandshake returns the Sec-WebSocket-Accept value, or an HTTP status
// and message for a bad handshake.
func checkHandshake(ctx *fasthttp.RequestCtx) (accept string, status int, msg string) {
	hd := &ctx.Request.Header
	switch {
	case !ctx.IsGet():
		return "", fasthttp.StatusBadRequest, "websocket: method must be GET"
	case !hd.IsHTTP11():
		return "", fasthttp.StatusBadRequest, "websocket: HTTP/1.1 required"
	case !hasToken(hd.Peek("Upgrade"), "websocket"):
		return "", fasthttp.StatusBadRequest, "websocket: missing Upgrade: websocket"
	case !hd.ConnectionUpgrade():
		return "", fasthttp.StatusBadRequest, "websocket: missing Connection: upgrade"
	case string(bytes.TrimSpace(hd.Peek("Sec-WebSocket-Version"))) != "13":
		return "", fasthttp.StatusUpgradeRequired, "websocket: unsupported version"
	}
	key := bytes.TrimSpace(hd.Peek("Sec-WebSocket-Key"))
	var raw [18]byte
	if len(key) != 24 {
		return "", fasthttp.StatusBadRequest, "websocket: bad Sec-WebSocket-Key"
	}
	if n, err := base64.StdEncoding.Decode(raw[:], key); err != nil || n != 16 {
		return "", fasthttp.StatusBadRequest, "websocket: bad Sec-WebSocket-Key"
	}
	return acceptKey(key), 0, ""
}

func acceptKey(key []byte) string {
	s := sha1.New()
	s.Write(key)
	s.Write([]byte(wsGUID))
	return base64.StdEncoding.EncodeToString(s.Sum(nil))
}

// hasToken reports whether the comma-separated header value v holds tok,
// case-insensitively.
func hasToken(v []byte, tok string) bool {
	for len(v) > 0 {
		var part []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			part, v = v[:i], v[i+1:]
		} else {
			part, v = v, nil
		}
		if bytes.EqualFold(bytes.TrimSpace(part), []byte(tok)) {
			return true
		}
	}
	return false
}

// unwrapConn finds the socket under fasthttp's wrappers: the hijacked conn
// (UnsafeConn) and, with Server.MaxConnsPerIP, a per-IP counting conn that
// embeds net.Conn.
func unwrapConn(c net.Conn) net.Conn {
	for range 4 {
		if _, ok := c.(syscall.Conn); ok {
			return c
		}
		if u, ok := c.(interface{ UnsafeConn() net.Conn }); ok {
			c = u.UnsafeConn()
			continue
		}
		v := reflect.ValueOf(c)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return c
		}
		f := v.Elem().FieldByName("Conn")
		if !f.IsValid() || !f.CanInterface() {
			return c
		}
		inner, ok := f.Interface().(net.Conn)
		if !ok || inner == nil {
			return c
		}
		c = inner
	}
	return c
}

// ConnState must be installed as the fasthttp.Server's ConnState: it tells
// the hub when fasthttp closed a connection whose upgrade it never handed
// over (a failed write or deadline before the hijack), so that the
// upgrade's handler gets OnAbort. It costs an atomic load for connections
// with no upgrade pending.
func (h *Hub) ConnState(c net.Conn, st fasthttp.ConnState) {
	if st != fasthttp.StateClosed {
		return
	}
	if handler := h.upgrades.take(c); handler != nil {
		h.callAbort(handler, ErrUpgradeLost)
	}
}

// Upgrade turns the request into a WebSocket served by the hub. Call it from
// a fasthttp handler after your own checks: to refuse, answer the request
// yourself (plain-text 401, 429 with headers and a JSON body, ...) and do not
// call Upgrade.
//
// Upgrade validates the opening handshake (GET, HTTP/1.1, Upgrade: websocket,
// Connection: upgrade, Sec-WebSocket-Version: 13, a 16-byte base64
// Sec-WebSocket-Key). On a bad handshake it answers 400 (426 for another
// version) and returns ErrBadHandshake; when the hub is not running, 503 and
// ErrHubClosed. Otherwise it hijacks the connection with no fasthttp
// response: once the handler returns, fasthttp hands the connection over,
// the hub calls OnPrepare (see Preparer), writes the 101 answer itself,
// takes over any bytes fasthttp had already buffered after the request,
// duplicates the socket's descriptor into its epoll loop and lets fasthttp
// close its own copy. OnOpen follows on the loop (the portable transport
// instead runs the connection's reads on the hijack goroutine, which then
// lives as long as the socket). If any of that fails, or
// fasthttp never hands the connection over (this needs ConnState installed
// on the server), the handler gets OnAbort instead.
//
// No subprotocol or extension is negotiated (no permessage-deflate): frames
// with reserved bits are refused. TLS must end in front of the process; a
// hijacked TLS connection has no usable descriptor and is closed.
func (h *Hub) Upgrade(ctx *fasthttp.RequestCtx, handler Handler, opt Options) error {
	if !h.running() {
		ctx.Response.Header.Set("Connection", "close")
		plain(ctx, fasthttp.StatusServiceUnavailable, "service unavailable")
		return ErrHubClosed
	}
	accept, status, msg := checkHandshake(ctx)
	if status != 0 {
		if status == fasthttp.StatusUpgradeRequired {
			ctx.Response.Header.Set("Sec-WebSocket-Version", "13")
		}
		plain(ctx, status, msg)
		return ErrBadHandshake
	}
	o := opt.resolve()
	remote := ctx.RemoteAddr()
	key := ctx.Conn()
	h.upgrades.add(key, handler)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(nc net.Conn) {
		if h.upgrades.take(key) != nil {
			h.adopt(nc, accept, handler, o, remote)
		}
	})
	return nil
}
