// Package upstream is the seam between detectors of platform activity and the
// engine's ingest API (CONTRACT.md section 3). A Source produces observations
// (the simulator in upstream/sim, later real connectors); a Sink accepts them
// (HTTPSink posts them to /ingest/v1/observations, an in-process engine can
// offer a SinkFunc). Observations travel as encoded NDJSON lines, exactly the
// bytes protocol.DecodeObservation validates.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// Source produces observations and hands them to sink in batches until it is
// done or ctx ends. Run returns nil on a normal stop (ctx done, a configured
// duration or total reached) and an error only when it cannot go on, for
// example when the sink reports a permanent failure (see IsPermanent).
type Source interface {
	Run(ctx context.Context, sink Sink) error
}

// Sink accepts a batch of encoded observations, one JSON object per element
// without a trailing newline. A Sink must not keep lines after Send returns.
// Batches from one Source arrive in order; a Sink used by one Source is called
// from one goroutine at a time.
type Sink interface {
	Send(ctx context.Context, lines [][]byte) error
}

// SinkFunc adapts a function to Sink (for example an in-process ingest).
type SinkFunc func(ctx context.Context, lines [][]byte) error

// Send calls f.
func (f SinkFunc) Send(ctx context.Context, lines [][]byte) error { return f(ctx, lines) }

// Reporter is implemented by sinks that know what the receiver made of the
// lines (accepted and rejected counts); sources use it for progress output.
type Reporter interface {
	Stats() Snapshot
}

// Stats are live counters of a sink, safe for concurrent use.
type Stats struct {
	Requests atomic.Int64 // requests that got a 2xx answer
	Lines    atomic.Int64 // lines in those requests
	Accepted atomic.Int64 // lines the receiver accepted
	Rejected atomic.Int64 // lines the receiver rejected (bad observation)
	Errors   atomic.Int64 // failed Send calls (transport error or non-2xx)

	mu      sync.Mutex
	lastErr string
}

// Snapshot is a point-in-time copy of Stats.
type Snapshot struct {
	Requests, Lines, Accepted, Rejected, Errors int64
	LastError                                   string
}

// Snapshot copies the counters.
func (s *Stats) Snapshot() Snapshot {
	s.mu.Lock()
	last := s.lastErr
	s.mu.Unlock()
	return Snapshot{
		Requests:  s.Requests.Load(),
		Lines:     s.Lines.Load(),
		Accepted:  s.Accepted.Load(),
		Rejected:  s.Rejected.Load(),
		Errors:    s.Errors.Load(),
		LastError: last,
	}
}

// Stats lets a bare *Stats serve as a Reporter.
func (s *Stats) Stats() Snapshot { return s.Snapshot() }

// fail counts one failed Send and remembers its message.
func (s *Stats) fail(err error) {
	s.Errors.Add(1)
	s.mu.Lock()
	s.lastErr = err.Error()
	s.mu.Unlock()
}

// StatusError is a non-2xx answer of the receiver.
type StatusError struct {
	StatusCode int
	Status     string // e.g. "401 Unauthorized"
	Body       string // the start of the response body
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("ingest: HTTP %s", e.Status)
	}
	return fmt.Sprintf("ingest: HTTP %s: %s", e.Status, e.Body)
}

// Permanent reports whether retrying the same request cannot help: a 4xx
// other than 408 (timeout), 413 (that batch was too large) and 429 (rate).
func (e *StatusError) Permanent() bool {
	c := e.StatusCode
	return c >= 400 && c < 500 && c != http.StatusRequestTimeout &&
		c != http.StatusRequestEntityTooLarge && c != http.StatusTooManyRequests
}

// IsPermanent reports whether err says the sink will keep failing, such as a
// wrong admin token (401) or a wrong base URL (404). A source should stop.
func IsPermanent(err error) bool {
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}

// retryable reports whether a failed request was surely not processed by the
// receiver, so sending it again cannot duplicate observations.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		switch se.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// WriterSink writes each batch as NDJSON to W (a file, stdout). It is safe
// for concurrent use.
type WriterSink struct {
	W  io.Writer
	mu sync.Mutex
	st Stats
}

// Send writes the lines, each followed by a newline, in one Write call.
func (w *WriterSink) Send(ctx context.Context, lines [][]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	buf := joinNDJSON(nil, lines)
	w.mu.Lock()
	_, err := w.W.Write(buf)
	w.mu.Unlock()
	if err != nil {
		w.st.fail(err)
		return err
	}
	w.st.Requests.Add(1)
	w.st.Lines.Add(int64(len(lines)))
	w.st.Accepted.Add(int64(len(lines)))
	return nil
}

// Stats reports the lines written.
func (w *WriterSink) Stats() Snapshot { return w.st.Snapshot() }

// Discard is a Sink that drops every batch (benchmarks, dry runs).
var Discard Sink = SinkFunc(func(ctx context.Context, lines [][]byte) error { return ctx.Err() })

// joinNDJSON appends the lines to dst, each followed by '\n'.
func joinNDJSON(dst []byte, lines [][]byte) []byte {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	if cap(dst)-len(dst) < n {
		nd := make([]byte, len(dst), len(dst)+n)
		copy(nd, dst)
		dst = nd
	}
	for _, l := range lines {
		dst = append(dst, l...)
		dst = append(dst, '\n')
	}
	return dst
}
