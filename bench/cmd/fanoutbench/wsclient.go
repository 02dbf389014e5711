//go:build linux

package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A minimal WebSocket client, just enough for the bench: the opening
// handshake and the HELLO → LOGIN → READY exchange run on a blocking
// net.Conn in a dial worker; then the socket's descriptor is duplicated and
// handed to an epoll loop (loop.go) and the net.Conn is closed.

// Opcodes of RFC 6455 frames the client handles.
const (
	opText  = 0x1
	opClose = 0x8
	opPing  = 0x9
	opPong  = 0xA
)

// appendMasked appends one final, masked client frame (RFC 6455 5.3).
func appendMasked(dst []byte, op byte, payload []byte, mask uint32) []byte {
	dst = append(dst, 0x80|op)
	n := len(payload)
	switch {
	case n < 126:
		dst = append(dst, 0x80|byte(n))
	case n <= 0xffff:
		dst = append(dst, 0x80|126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0x80|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	var m [4]byte
	binary.BigEndian.PutUint32(m[:], mask)
	dst = append(dst, m[:]...)
	for i, b := range payload {
		dst = append(dst, b^m[i&3])
	}
	return dst
}

// parseFrame reads one server frame from b: its opcode, payload and total
// length; n == 0 when b does not hold a whole frame yet. Server frames are
// never masked; a masked one is an error.
func parseFrame(b []byte) (op byte, payload []byte, n int, err error) {
	if len(b) < 2 {
		return 0, nil, 0, nil
	}
	if b[1]&0x80 != 0 {
		return 0, nil, 0, errors.New("masked server frame")
	}
	hl, l := 2, uint64(b[1]&0x7f)
	switch l {
	case 126:
		if len(b) < 4 {
			return 0, nil, 0, nil
		}
		hl, l = 4, uint64(binary.BigEndian.Uint16(b[2:]))
	case 127:
		if len(b) < 10 {
			return 0, nil, 0, nil
		}
		hl, l = 10, binary.BigEndian.Uint64(b[2:])
		if l > 1<<30 {
			return 0, nil, 0, errors.New("frame too large")
		}
	}
	if uint64(len(b)-hl) < l {
		return 0, nil, 0, nil
	}
	end := hl + int(l)
	return b[0] & 0x0f, b[hl:end], end, nil
}

// session is one logged-in socket after the handshake.
type session struct {
	fd   int
	rest []byte // bytes read past READY
	node int    // -cluster: index of the node dialled (connectSpread)
}

// dialSession connects from local, upgrades /v1/dt/realtime/ws, waits for
// HELLO, logs in with key and waits for READY.
func dialSession(addr string, local net.Addr, key string, timeout time.Duration) (*session, error) {
	d := net.Dialer{LocalAddr: local, Timeout: timeout}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer nc.Close() // the loop works on a duplicate descriptor
	_ = nc.SetDeadline(time.Now().Add(timeout))
	var k [16]byte
	_, _ = rand.Read(k[:])
	req := "GET /v1/dt/realtime/ws HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " +
		base64.StdEncoding.EncodeToString(k[:]) + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(nc, req); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, 4096)
	var end int
	for {
		if end = bytes.Index(buf, []byte("\r\n\r\n")); end >= 0 {
			break
		}
		if buf, err = readMore(nc, buf); err != nil {
			return nil, fmt.Errorf("upgrade: %w", err)
		}
	}
	if !bytes.HasPrefix(buf, []byte("HTTP/1.1 101")) {
		line, _, _ := bytes.Cut(buf, []byte("\r\n"))
		return nil, fmt.Errorf("upgrade refused: %s", line)
	}
	buf = buf[end+4:]
	// HELLO (op 10), then READY (op 4) after our LOGIN.
	for step, want := 0, []byte(`{"op":10`); step < 2; {
		op, p, n, err := parseFrame(buf)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if buf, err = readMore(nc, buf); err != nil {
				return nil, fmt.Errorf("waiting for %s: %w", want, err)
			}
			continue
		}
		if op != opText || !bytes.HasPrefix(p, want) {
			return nil, fmt.Errorf("want %s..., got op %d %.200s", want, op, p)
		}
		buf = buf[n:]
		if step == 0 {
			login := appendMasked(nil, opText, []byte(`{"op":2,"d":"`+key+`"}`), mask32())
			if _, err := nc.Write(login); err != nil {
				return nil, err
			}
			want = []byte(`{"op":4`)
		}
		step++
	}
	fd, err := dupFD(nc)
	if err != nil {
		return nil, err
	}
	return &session{fd: fd, rest: append([]byte(nil), buf...)}, nil
}

func readMore(nc net.Conn, buf []byte) ([]byte, error) {
	if len(buf) == cap(buf) {
		nb := make([]byte, len(buf), 2*cap(buf))
		copy(nb, buf)
		buf = nb
	}
	n, err := nc.Read(buf[len(buf):cap(buf)])
	if n > 0 {
		return buf[:len(buf)+n], nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return buf, err
}

// dupFD returns a non-blocking duplicate of the connection's descriptor.
func dupFD(nc net.Conn) (int, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1, errors.New("no descriptor")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func mask32() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint32(b[:])
}
