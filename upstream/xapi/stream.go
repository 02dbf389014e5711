package xapi

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"
)

// errStalled ends a stream that sent nothing, not even a keep-alive, for
// StallAfter.
var errStalled = errors.New("x stream stalled: no keep-alive")

// streamer reads GET /2/tweets/search/stream and reconnects it the way the
// API asks (backoff.go). It is run by one goroutine; the watchdog of each
// connection is a second one that ends with the connection.
type streamer struct {
	c        *client
	clock    clockwork.Clock
	stall    time.Duration
	backfill bool
	emit     *emitter
	stats    *Stats
	log      *slog.Logger
}

// run keeps a stream open until ctx ends.
func (s *streamer) run(ctx context.Context) {
	var bo backoff
	var downSince time.Time // when the last established stream dropped
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			s.stats.Reconnects.Add(1)
		}
		established, err := s.once(ctx, downSince)
		if ctx.Err() != nil {
			return
		}
		var wait time.Duration
		if established {
			bo.reset()
			downSince = s.clock.Now()
			// the first reconnect after a drop is immediate
		} else {
			f := classify(err)
			wait = bo.next(f)
			if f == failRate {
				wait = max(wait, s.c.lim.delay(epStream)) // never before an announced reset
			}
		}
		s.log.Warn("x stream disconnected", "err", err, "retry_in", wait.String())
		if wait > 0 {
			t := s.clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.Chan():
			}
		}
	}
}

// once opens the stream and reads it until it ends. established says the
// API answered 200, so the next attempt starts the schedules over.
func (s *streamer) once(ctx context.Context, downSince time.Time) (established bool, err error) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	path := "/2/tweets/search/stream?" + streamQuery
	if s.backfill && !downSince.IsZero() {
		m := int(s.clock.Since(downSince)/time.Minute) + 1
		path += "&backfill_minutes=" + strconv.Itoa(min(m, 5))
	}
	req, err := s.c.newRequest(cctx, http.MethodGet, path, nil)
	if err != nil {
		return false, err
	}
	resp, err := s.c.http.Do(req)
	if err != nil {
		s.stats.HTTPErrors.Add(1)
		return false, err
	}
	defer resp.Body.Close()
	s.c.lim.update(epStream, resp.StatusCode, resp.Header)
	if resp.StatusCode != http.StatusOK {
		s.stats.HTTPErrors.Add(1)
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return false, errorOf(resp.StatusCode, b)
	}
	if !downSince.IsZero() {
		gap := s.clock.Since(downSince)
		s.stats.GapMillis.Add(gap.Milliseconds())
		// Posts of the gap are lost unless backfilled; late ones that do come
		// are delivered by the engine's late-delivery rules.
		s.log.Warn("x stream gap", "from", downSince.UTC().Format(time.RFC3339Nano), "to", s.clock.Now().UTC().Format(time.RFC3339Nano),
			"gap_ms", gap.Milliseconds(), "backfill", s.backfill)
	}
	s.log.Info("x stream connected")
	alive := make(chan struct{}, 1)
	stalled := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go s.watch(alive, stalled, done, cancel)
	err = s.read(cctx, resp.Body, alive)
	select {
	case <-stalled:
		s.stats.Stalls.Add(1)
		err = errStalled
	default:
	}
	return true, err
}

// watch cancels the connection when alive stays silent for the stall time.
func (s *streamer) watch(alive <-chan struct{}, stalled, done chan struct{}, cancel context.CancelFunc) {
	t := s.clock.NewTimer(s.stall)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-alive:
			t.Reset(s.stall)
		case <-t.Chan():
			close(stalled)
			cancel()
			return
		}
	}
}

// read handles lines until the body ends or fails. Every line, keep-alive
// or not, proves the stream alive.
func (s *streamer) read(ctx context.Context, body io.Reader, alive chan<- struct{}) error {
	br := bufio.NewReaderSize(body, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			long = append(long, chunk...)
			continue
		}
		if len(chunk) > 0 || err == nil {
			select {
			case alive <- struct{}{}:
			default:
			}
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF // the API never ends a healthy stream
			}
			return err
		}
		if !s.handle(ctx, line) {
			return ctx.Err()
		}
	}
}

// handle maps one line; false when ctx ended while queueing.
func (s *streamer) handle(ctx context.Context, line []byte) bool {
	var sl streamLine
	err := decodeLine(line, &sl)
	switch {
	case errors.Is(err, ErrNoPost):
		s.stats.KeepAlives.Add(1)
		return true
	case err != nil:
		s.stats.Malformed.Add(1)
		s.log.Warn("x stream: malformed line skipped", "err", err, "bytes", len(line))
		return true
	case sl.Data == nil:
		s.stats.Skipped.Add(1)
		for _, p := range sl.Errors {
			if strings.HasSuffix(p.Type, problemOperationalDisconnect) {
				s.log.Warn("x stream: operational disconnect announced", "disconnect_type", p.DisconnectType, "detail", p.Detail)
			} else {
				s.log.Warn("x stream: problem", "title", p.Title, "detail", p.Detail, "type", p.Type)
			}
		}
		return true
	}
	obs, created, err := encodePost(sl.Data, &sl.Includes)
	if err != nil {
		s.stats.Malformed.Add(1)
		s.log.Warn("x stream: post skipped", "err", err, "id", sl.Data.ID)
		return true
	}
	return s.emit.put(ctx, item{line: obs, kind: 'p', eventMs: created})
}
