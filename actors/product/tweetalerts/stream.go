package tweetalerts

import (
	"fmt"

	"github.com/alertd/alertd/protocol"
	"sync"
	"sync/atomic"
	"time"
)

// Sender is the write side of one WebSocket; Send must never block.
type Sender interface {
	Send(frame []byte) bool
}

// Stream is the fan-out of the Tweet Alerts WebSocket: which socket listens
// to which handle since when. Publish encodes each alert once and hands the
// same bytes to every subscribed socket, on the caller's goroutine: no
// goroutine per socket. Safe for concurrent use.
type Stream struct {
	now    func() time.Time
	maxAge time.Duration

	mu       sync.RWMutex
	byHandle map[string]map[*Socket]int64 // subscribed since (epoch ms)
	byOwner  map[string]map[*Socket]struct{}
	sent     atomic.Int64
}

// NewStream returns a stream that sends posts made less than maxAge ago.
func NewStream(maxAge time.Duration, now func() time.Time) *Stream {
	if now == nil {
		now = time.Now
	}
	return &Stream{now: now, maxAge: maxAge, byHandle: map[string]map[*Socket]int64{},
		byOwner: map[string]map[*Socket]struct{}{}}
}

// Socket is one open Tweet Alerts WebSocket.
type Socket struct {
	st    *Stream
	out   Sender
	owner string
	// tracked reports whether a handle is on the account's tracked list.
	tracked func(handle string) bool
	max     int
	handles map[string]int64 // under st.mu
	closed  bool             // under st.mu
}

// Open registers a socket. owner is an opaque key of whose tracked list
// the socket follows (the account and the product of its key), max the
// plan's handle maximum, tracked the list's membership test.
func (st *Stream) Open(out Sender, owner string, max int, tracked func(handle string) bool) *Socket {
	s := &Socket{st: st, out: out, owner: owner, tracked: tracked, max: max, handles: map[string]int64{}}
	st.mu.Lock()
	m := st.byOwner[owner]
	if m == nil {
		m = map[*Socket]struct{}{}
		st.byOwner[owner] = m
	}
	m[s] = struct{}{}
	st.mu.Unlock()
	return s
}

// Close unsubscribes the socket from everything.
func (s *Socket) Close() {
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	for h := range s.handles {
		st.unsubLocked(s, h)
	}
	if m := st.byOwner[s.owner]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(st.byOwner, s.owner)
		}
	}
}

func (st *Stream) unsubLocked(s *Socket, h string) {
	delete(s.handles, h)
	if m := st.byHandle[h]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(st.byHandle, h)
		}
	}
}

// Handle answers one client frame (on the socket's read goroutine; it never
// blocks).
func (s *Socket) Handle(payload []byte) {
	req, err := protocol.DecodeTweetAlertsRequest(payload)
	if err != nil {
		s.out.Send(protocol.TweetAlertsErrorFrame(err.Error()))
		return
	}
	for _, bad := range req.Invalid {
		s.out.Send(protocol.TweetAlertsErrorFrame(fmt.Sprintf("%q is not a handle; skipped", bad)))
	}
	switch req.Type {
	case protocol.TweetAlertsPing:
		s.out.Send(protocol.TweetAlertsPong)
	case protocol.TweetAlertsSubscribe:
		s.subscribe(req.Handles)
	case protocol.TweetAlertsUnsubscribe:
		s.unsubscribe(req.Handles)
	}
}

func (s *Socket) subscribe(handles []string) {
	st := s.st
	var errs [][]byte
	var ok []string
	st.mu.Lock()
	if s.closed {
		st.mu.Unlock()
		return
	}
	since := st.now().UnixMilli()
	full := false
	for _, h := range handles {
		if _, on := s.handles[h]; on {
			ok = append(ok, h)
			continue
		}
		if !s.tracked(h) {
			errs = append(errs, protocol.TweetAlertsErrorFrame(fmt.Sprintf("%s is not on your tracked list; skipped", h)))
			continue
		}
		if len(s.handles) >= s.max {
			if !full {
				errs = append(errs, protocol.TweetAlertsErrorFrame(fmt.Sprintf("subscription would exceed the handle limit of %d; the rest is skipped", s.max)))
				full = true
			}
			continue
		}
		s.handles[h] = since
		m := st.byHandle[h]
		if m == nil {
			m = map[*Socket]int64{}
			st.byHandle[h] = m
		}
		m[s] = since
		ok = append(ok, h)
	}
	active := len(s.handles)
	st.mu.Unlock()
	for _, f := range errs {
		s.out.Send(f)
	}
	if len(ok) > 0 {
		s.out.Send(protocol.TweetAlertsAckFrame(protocol.TweetAlertsSubscribe, ok, active, s.max))
	}
}

func (s *Socket) unsubscribe(handles []string) {
	st := s.st
	st.mu.Lock()
	if s.closed {
		st.mu.Unlock()
		return
	}
	for _, h := range handles {
		if _, on := s.handles[h]; on {
			st.unsubLocked(s, h)
		}
	}
	active := len(s.handles)
	st.mu.Unlock()
	s.out.Send(protocol.TweetAlertsAckFrame(protocol.TweetAlertsUnsubscribe, handles, active, s.max))
}

// Active is the number of handles the socket is subscribed to.
func (s *Socket) Active() int {
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	return len(s.handles)
}

// Publish sends a new post to the sockets subscribed to its handle since
// before it was detected (detectedAt, epoch ms), if it was made less than
// maxAge ago. There is no replay: a later subscriber never gets it.
func (st *Stream) Publish(a *protocol.TweetAlert, detectedAt int64) {
	st.mu.RLock()
	n := len(st.byHandle[a.Handle])
	st.mu.RUnlock()
	if n == 0 {
		return
	}
	if st.now().UnixMilli()-a.CreatedAt >= st.maxAge.Milliseconds() {
		return
	}
	frame := protocol.TweetAlertFrame(a) // once, for every socket
	st.mu.RLock()
	defer st.mu.RUnlock()
	for s, since := range st.byHandle[a.Handle] {
		if detectedAt >= since && s.out.Send(frame) {
			st.sent.Add(1)
		}
	}
}

// Untracked unsubscribes owner's sockets from handle (it left the list).
func (st *Stream) Untracked(owner, handle string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for s := range st.byOwner[owner] {
		if _, on := s.handles[handle]; on {
			st.unsubLocked(s, handle)
		}
	}
}

// Sent is the number of alert frames handed to sockets.
func (st *Stream) Sent() int64 { return st.sent.Load() }
