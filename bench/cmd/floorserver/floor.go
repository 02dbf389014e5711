//go:build linux

package main

import (
	"bytes"
	"crypto/subtle"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// floor holds the logged-in sockets by handle. mu guards subs and conns:
// publishers hold it for reading while they write (so a descriptor is never
// closed and reused under a write), logins and drops for writing. Each
// fconn's partial is the read loop's alone.
type floor struct {
	handles, targets int
	token            string
	pad              int // EVENT payload bytes at least
	epfd             int

	mu    sync.RWMutex
	subs  [][]int32        // by handle index: descriptors of its subscribers
	conns map[int32]*fconn // by descriptor

	open      atomic.Int64
	delivered atomic.Int64
	short     atomic.Int64 // writes the socket could not take whole (socket dropped)
}

// fconn is one logged-in socket.
type fconn struct {
	fd      int32
	acct    int
	partial []byte // a client frame split over reads
}

func newFloor(handles, targets, pad int, token string) (*floor, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &floor{handles: handles, targets: targets, pad: pad, token: token, epfd: epfd,
		subs: make([][]int32, handles), conns: map[int32]*fconn{}}, nil
}

// accountHandles calls f with each handle index account a watches.
func (fl *floor) accountHandles(a int, f func(h int)) {
	for j := range fl.targets {
		f((a*fl.targets + j) % fl.handles)
	}
}

// register subscribes a logged-in socket and hands it to the read loop.
func (fl *floor) register(fd int, acct int) error {
	c := &fconn{fd: int32(fd), acct: acct}
	fl.mu.Lock()
	fl.conns[c.fd] = c
	fl.accountHandles(acct, func(h int) { fl.subs[h] = append(fl.subs[h], c.fd) })
	fl.mu.Unlock()
	fl.open.Add(1)
	return unix.EpollCtl(fl.epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)})
}

// drop unsubscribes and closes a socket (once).
func (fl *floor) drop(fd int32) {
	fl.mu.Lock()
	c := fl.conns[fd]
	if c == nil {
		fl.mu.Unlock()
		return
	}
	delete(fl.conns, fd)
	fl.accountHandles(c.acct, func(h int) {
		s := fl.subs[h]
		for i, x := range s {
			if x == fd {
				s[i] = s[len(s)-1]
				fl.subs[h] = s[:len(s)-1]
				break
			}
		}
	})
	unix.Close(int(fd))
	fl.mu.Unlock()
	fl.open.Add(-1)
}

func (fl *floor) closeAll() {
	fl.mu.RLock()
	fds := make([]int32, 0, len(fl.conns))
	for fd := range fl.conns {
		fds = append(fds, fd)
	}
	fl.mu.RUnlock()
	for _, fd := range fds {
		fl.drop(fd)
	}
}

func (fl *floor) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	b := []byte(`{"status":"ok","ws_connections":`)
	b = strconv.AppendInt(b, fl.open.Load(), 10)
	b = append(b, `,"delivered":`...)
	b = strconv.AppendInt(b, fl.delivered.Load(), 10)
	b = append(b, `,"short_writes":`...)
	b = strconv.AppendInt(b, fl.short.Load(), 10)
	_, _ = w.Write(append(b, '}'))
}

var handleKey = []byte(`"handle":"fb_h`)

// ingest takes the bench's NDJSON posts and fans each out at once.
func (fl *floor) ingest(w http.ResponseWriter, r *http.Request) {
	if fl.token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+fl.token)) != 1 {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	accepted := 0
	var frame []byte
	var dead []int32
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		h := handleIndex(line)
		if h < 0 || h >= fl.handles {
			http.Error(w, "line without a bench handle", http.StatusUnprocessableEntity)
			return
		}
		frame = eventFrame(frame[:0], bytes.TrimSpace(line), fl.pad)
		fl.mu.RLock()
		for _, fd := range fl.subs[h] {
			if n, err := unix.Write(int(fd), frame); err != nil || n != len(frame) {
				dead = append(dead, fd)
				continue
			}
			fl.delivered.Add(1)
		}
		fl.mu.RUnlock()
		accepted++
	}
	for _, fd := range dead {
		fl.short.Add(1)
		fl.drop(fd)
	}
	w.Header().Set("Content-Type", "application/json")
	b := strconv.AppendInt([]byte(`{"ok":true,"data":{"accepted":`), int64(accepted), 10)
	_, _ = w.Write(append(b, `,"rejected":[]}}`...))
}

// handleIndex is i of the line's "handle":"fb_h<i>"; -1 without one.
func handleIndex(line []byte) int {
	i := bytes.Index(line, handleKey)
	if i < 0 {
		return -1
	}
	n, digits := 0, 0
	for _, b := range line[i+len(handleKey):] {
		if b < '0' || b > '9' {
			break
		}
		n, digits = n*10+int(b-'0'), digits+1
	}
	if digits == 0 {
		return -1
	}
	return n
}

// eventFrame appends one server text frame holding an EVENT whose d is the
// ingested observation, padded (a "pad" member) to at least pad bytes of
// payload: the size of alertd's event for the same post.
func eventFrame(dst, obs []byte, pad int) []byte {
	const head, mid, tail = `{"op":0,"t":"post","d":`, `,"pad":"`, `"}`
	fill := max(pad-len(head)-len(obs)-len(mid)-len(tail), 0)
	return appendFrame(dst, opText, []byte(head), obs, []byte(mid), padding[:min(fill, len(padding))], []byte(tail))
}

var padding = bytes.Repeat([]byte{'.'}, 64<<10)
