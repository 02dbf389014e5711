package webhook

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// sender makes the attempts' HTTP/1.1 requests: fasthttp's request and
// response codecs over a pool of keep-alive connections per host, each
// dialled through the guard (the net/http client cost a quarter of a busy
// engine's CPU; fasthttp's own Client leaves cleaner goroutines running
// after it is closed). No redirect is followed, no proxy used. close
// closes every connection, idle or busy, so attempts in flight fail at
// once. Idle connections unused for idleFor are closed when the pool is
// next touched, so no goroutine sweeps them.
type sender struct {
	base   context.Context
	dialer *net.Dialer
	max    int // idle connections kept per host

	// mu guards idle, busy, closed and swept.
	mu     sync.Mutex
	idle   map[string][]*pconn // by scheme://host:port, most recent last
	busy   map[*pconn]struct{}
	closed bool
	swept  time.Time
}

// pconn is one connection with its buffers.
type pconn struct {
	key  string
	c    net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	used time.Time
}

const (
	// maxAnswer bounds the answer body read from a receiver; past it the
	// status still counts and the connection is closed.
	maxAnswer = 64 << 10
	idleFor   = 90 * time.Second
)

var errSenderClosed = errors.New("webhook sender closed")

func newSender(base context.Context, guard *Guard, timeout time.Duration, conns int) *sender {
	g := guard
	if g == nil {
		g = &Guard{Allow: mustPrefixes("0.0.0.0/0", "::/0")}
	}
	return &sender{base: base, dialer: g.Dialer(timeout), max: max(conns, 1),
		idle: map[string][]*pconn{}, busy: map[*pconn]struct{}{}}
}

// do sends req and reads the answer into resp before deadline. A request
// on a reused connection that the receiver had closed meanwhile is sent
// once more on a new one, as net/http does.
func (s *sender) do(req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time) error {
	uri := req.URI()
	tlsOn := string(uri.Scheme()) == "https"
	addr := fasthttp.AddMissingPort(string(uri.Host()), tlsOn)
	key := string(uri.Scheme()) + "://" + addr
	for try := 0; ; try++ {
		pc, reused, err := s.get(key, addr, tlsOn, string(uri.Host()), deadline)
		if err != nil {
			return err
		}
		err = s.roundTrip(pc, req, resp, deadline)
		if err == nil && !resp.ConnectionClose() {
			s.put(pc)
			return nil
		}
		s.drop(pc)
		if errors.Is(err, fasthttp.ErrBodyTooLarge) {
			return nil // the status is there; the rest of the body is not read
		}
		if err == nil || !reused || try > 0 || !closedByPeer(err) {
			return err
		}
		resp.Reset()
	}
}

func (s *sender) roundTrip(pc *pconn, req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time) error {
	if err := pc.c.SetDeadline(deadline); err != nil {
		return err
	}
	if err := req.Write(pc.bw); err != nil {
		return err
	}
	if err := pc.bw.Flush(); err != nil {
		return err
	}
	return resp.ReadLimitBody(pc.br, maxAnswer)
}

// closedByPeer: the error of a connection the receiver closed while it was
// idle (nothing was answered).
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, fasthttp.ErrConnectionClosed)
}

// get takes an idle connection to key, or dials one.
func (s *sender) get(key, addr string, tlsOn bool, host string, deadline time.Time) (*pconn, bool, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, false, errSenderClosed
	}
	now := time.Now()
	for l := s.idle[key]; len(l) > 0; l = s.idle[key] {
		pc := l[len(l)-1]
		l[len(l)-1] = nil
		s.idle[key] = l[:len(l)-1]
		if now.Sub(pc.used) > idleFor {
			s.mu.Unlock()
			pc.c.Close()
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				return nil, false, errSenderClosed
			}
			continue
		}
		s.busy[pc] = struct{}{}
		s.mu.Unlock()
		return pc, true, nil
	}
	if len(s.idle[key]) == 0 {
		delete(s.idle, key)
	}
	s.mu.Unlock()

	ctx, cancel := context.WithDeadline(s.base, deadline)
	defer cancel()
	c, err := s.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	if tlsOn {
		name, _, err := net.SplitHostPort(addr)
		if err != nil {
			name = host
		}
		tc := tls.Client(c, &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12})
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, false, err
		}
		c = tc
	}
	pc := &pconn{key: key, c: c, br: bufio.NewReaderSize(c, 4<<10), bw: bufio.NewWriterSize(c, 4<<10)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil, false, errSenderClosed
	}
	s.busy[pc] = struct{}{}
	return pc, false, nil
}

// put returns a connection to the idle pool (closing it when the pool of
// its host is full), and closes the pool's long-idle connections at most
// every idleFor/3.
func (s *sender) put(pc *pconn) {
	pc.used = time.Now()
	var stale []*pconn
	s.mu.Lock()
	delete(s.busy, pc)
	if s.closed || len(s.idle[pc.key]) >= s.max {
		stale = append(stale, pc)
	} else {
		s.idle[pc.key] = append(s.idle[pc.key], pc)
	}
	if pc.used.Sub(s.swept) > idleFor/3 {
		s.swept = pc.used
		for k, l := range s.idle {
			keep := l[:0]
			for _, x := range l {
				if pc.used.Sub(x.used) > idleFor {
					stale = append(stale, x)
				} else {
					keep = append(keep, x)
				}
			}
			clear(l[len(keep):])
			if len(keep) == 0 {
				delete(s.idle, k)
			} else {
				s.idle[k] = keep
			}
		}
	}
	s.mu.Unlock()
	for _, x := range stale {
		x.c.Close()
	}
}

// drop closes a connection that is not reused.
func (s *sender) drop(pc *pconn) {
	s.mu.Lock()
	delete(s.busy, pc)
	s.mu.Unlock()
	pc.c.Close()
}

// close closes every connection, idle or busy: attempts in flight fail at
// once.
func (s *sender) close() {
	s.mu.Lock()
	s.closed = true
	var all []*pconn
	for _, l := range s.idle {
		all = append(all, l...)
	}
	for pc := range s.busy {
		all = append(all, pc)
	}
	s.idle, s.busy = map[string][]*pconn{}, map[*pconn]struct{}{}
	s.mu.Unlock()
	for _, pc := range all {
		pc.c.Close()
	}
}

// validURL reports whether raw is an absolute http(s) URL with a host: the
// only kind a request can be made to.
func validURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// sendError says why an attempt got no answer, for the log (never with the
// URL, whose query may hold a receiver's token).
func sendError(err error, timeout time.Duration) string {
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, fasthttp.ErrTimeout) {
		return "no answer within " + timeout.String()
	}
	return attemptError(err, timeout)
}
