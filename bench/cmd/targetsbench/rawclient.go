package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// rawConn is the load generator's connection (-client raw): a wrk-style
// HTTP/1.1 client that writes a batch of pre-built requests with one write
// and reads their answers in order, parsing only the status line and
// Content-Length. It exists because a general client (fasthttp's) costs
// 15-20 µs of CPU per request, as much as a third of the server's, on the
// cores the server runs on; the bench measures the server.
type rawConn struct {
	c   net.Conn
	r   *bufio.Reader
	out []byte
}

func dialRaw(addr string) (*rawConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

func (rc *rawConn) Close() error { return rc.c.Close() }

// rawRequest is one pre-built POST with a JSON body.
func rawRequest(host, path, bearer string, body []byte) []byte {
	b := make([]byte, 0, 160+len(bearer)+len(body))
	b = append(b, "POST "...)
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\nAuthorization: Bearer "...)
	b = append(b, bearer...)
	b = append(b, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}

// send writes reqs with one write.
func (rc *rawConn) send(reqs [][]byte) error {
	rc.out = rc.out[:0]
	for _, q := range reqs {
		rc.out = append(rc.out, q...)
	}
	if err := rc.c.SetWriteDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return err
	}
	_, err := rc.c.Write(rc.out)
	return err
}

// answer reads the next answer and hands its status and body to f; the
// body is only valid during f.
func (rc *rawConn) answer(f func(code int, body []byte)) error {
	if err := rc.c.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return err
	}
	line, err := rc.r.ReadSlice('\n')
	if err != nil {
		return err
	}
	// "HTTP/1.1 201 Created\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return fmt.Errorf("bad status line %q", line)
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return fmt.Errorf("bad status line %q", line)
	}
	n := -1
	for {
		h, err := rc.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(h) <= 2 { // the blank line
			break
		}
		if len(h) > 15 && h[14] == ':' && bytes.EqualFold(h[:14], []byte("Content-Length")) {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(h[15:]))); err != nil {
				return fmt.Errorf("bad header %q", h)
			}
		} else if bytes.HasPrefix(bytes.ToLower(h), []byte("transfer-encoding:")) {
			return fmt.Errorf("unexpected header %q", h)
		}
	}
	if n < 0 {
		return fmt.Errorf("answer %d without Content-Length", code)
	}
	if n <= rc.r.Size() {
		body, err := rc.r.Peek(n)
		if err != nil {
			return err
		}
		f(code, body)
		_, err = rc.r.Discard(n)
		return err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(rc.r, body); err != nil {
		return err
	}
	f(code, body)
	return nil
}
