//go:build linux

package main

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// RFC 6455 opcodes the floor handles.
const (
	opText  = 0x1
	opClose = 0x8
	opPing  = 0x9
	opPong  = 0xA
)

// appendFrame appends one final, unmasked server frame whose payload is the
// parts in order.
func appendFrame(dst []byte, op byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	dst = append(dst, 0x80|op)
	switch {
	case n < 126:
		dst = append(dst, byte(n))
	case n <= 0xffff:
		dst = append(dst, 126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst
}

// clientFrame parses one masked client frame at the start of b and returns
// its opcode, unmasked payload (in place) and length; n == 0 while b is
// short. Client frames of more than 64 KiB are refused.
func clientFrame(b []byte) (op byte, payload []byte, n int, err error) {
	if len(b) < 2 {
		return 0, nil, 0, nil
	}
	if b[1]&0x80 == 0 {
		return 0, nil, 0, errors.New("unmasked client frame")
	}
	hl, l := 2, int(b[1]&0x7f)
	switch l {
	case 126:
		if len(b) < 4 {
			return 0, nil, 0, nil
		}
		hl, l = 4, int(binary.BigEndian.Uint16(b[2:]))
	case 127:
		return 0, nil, 0, errors.New("client frame too large")
	}
	if len(b) < hl+4+l {
		return 0, nil, 0, nil
	}
	mask := b[hl : hl+4]
	p := b[hl+4 : hl+4+l]
	for i := range p {
		p[i] ^= mask[i&3]
	}
	return b[0] & 0x0f, p, hl + 4 + l, nil
}

var (
	helloFrame = appendFrame(nil, opText, []byte(`{"op":10,"d":{"heartbeat_interval":30000}}`))
	ackFrame   = appendFrame(nil, opText, []byte(`{"op":11}`))
	keyPrefix  = []byte(`"d":"floor_`)
)

// upgrade runs the opening handshake and the HELLO → LOGIN → READY exchange
// on the hijacked connection, then registers a non-blocking duplicate of its
// descriptor and closes the original.
func (fl *floor) upgrade(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Sec-WebSocket-Key")
	if r.Method != http.MethodGet || key == "" {
		http.Error(w, "websocket only", http.StatusBadRequest)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "no hijack", http.StatusInternalServerError)
		return
	}
	nc, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer nc.Close() // the read loop works on a duplicate
	_ = nc.SetDeadline(time.Now().Add(15 * time.Second))
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"
	if _, err := nc.Write(append([]byte(resp), helloFrame...)); err != nil {
		return
	}
	login, err := readClientFrame(brw.Reader)
	if err != nil || !bytes.HasPrefix(login, []byte(`{"op":2`)) {
		return
	}
	i := bytes.Index(login, keyPrefix)
	if i < 0 {
		return
	}
	digits := login[i+len(keyPrefix):]
	end := bytes.IndexByte(digits, '"')
	acct, err := strconv.Atoi(string(digits[:max(end, 0)]))
	if end < 0 || err != nil || acct < 0 {
		return
	}
	ready := appendFrame(nil, opText, []byte(`{"op":4,"d":{"client_id":`+strconv.Itoa(acct)+`,"modules":["posts"],"handles":`+
		strconv.Itoa(fl.targets)+`,"max_handles":1000}}`))
	if _, err := nc.Write(ready); err != nil {
		return
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	fd := -1
	_ = rc.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if fd < 0 || err != nil {
		return
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return
	}
	if err := fl.register(fd, acct); err != nil {
		fl.drop(int32(fd))
	}
}

// readClientFrame reads one whole client frame during the login.
func readClientFrame(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		_, p, n, err := clientFrame(buf)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return p, nil
		}
		b, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		buf = append(buf, b)
		if len(buf) > 4096 {
			return nil, io.ErrShortBuffer
		}
	}
}

// readLoop reads every logged-in socket on one epoll instance: heartbeats
// get their ACK, pings their pong, a close or EOF drops the socket.
func (fl *floor) readLoop() {
	events := make([]unix.EpollEvent, 256)
	buf := make([]byte, 16<<10)
	for {
		n, err := unix.EpollWait(fl.epfd, events, -1)
		if err != nil && err != unix.EINTR {
			return
		}
		for i := range max(n, 0) {
			fd := events[i].Fd
			fl.mu.RLock()
			c := fl.conns[fd]
			fl.mu.RUnlock()
			if c == nil {
				continue
			}
			if !fl.readable(c, buf) {
				fl.drop(fd)
			}
		}
	}
}

// readable reads what the socket has; false when it must be dropped.
func (fl *floor) readable(c *fconn, buf []byte) bool {
	n, err := unix.Read(int(c.fd), buf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return true
	}
	if n <= 0 {
		return false
	}
	data := append(c.partial, buf[:n]...)
	for len(data) > 0 {
		op, p, m, err := clientFrame(data)
		if err != nil {
			return false
		}
		if m == 0 {
			break
		}
		switch op {
		case opText:
			if bytes.HasPrefix(p, []byte(`{"op":1}`)) || bytes.HasPrefix(p, []byte(`{"op":1,`)) {
				fl.control(c, ackFrame)
			}
		case opPing:
			fl.control(c, appendFrame(nil, opPong, p))
		case opClose:
			return false
		}
		data = data[m:]
	}
	c.partial = append(c.partial[:0], data...)
	return true
}

// control writes a small frame under the read lock, like a publisher.
func (fl *floor) control(c *fconn, frame []byte) {
	fl.mu.RLock()
	_, _ = unix.Write(int(c.fd), frame)
	fl.mu.RUnlock()
}
