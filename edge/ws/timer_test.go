package ws

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	gorilla "github.com/gorilla/websocket"
)

func TestRateLimit(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{MaxFramesPerWindow: 10, FrameWindow: time.Second})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	for i := range 10 {
		if err := c.WriteMessage(gorilla.TextMessage, []byte("m")); err != nil {
			t.Fatal(i, err)
		}
	}
	for range 10 {
		if _, _, err := c.ReadMessage(); err != nil {
			t.Fatal(err)
		}
	}
	c.WriteMessage(gorilla.TextMessage, []byte("11th"))
	_, _, err := c.ReadMessage()
	var ce *gorilla.CloseError
	if !errors.As(err, &ce) || ce.Code != 1008 {
		t.Fatalf("want 1008, got %v", err)
	}
	if s := rec.waitClosed(t); s != RateLimited {
		t.Fatalf("state %v", s)
	}
}

// Frames spread over more than the window pass.
func TestRateLimitSlidingWindow(t *testing.T) {
	r := rateLog{t: make([]int64, 3)}
	ms := int64(time.Millisecond)
	for i, tc := range []struct {
		at int64
		ok bool
	}{{0, true}, {100, true}, {200, true}, {999, false}, {1000, true}, {1050, false}, {1100, true}, {1200, true}, {2100, true}} {
		if got := r.allow(tc.at*ms, 1000*ms); got != tc.ok {
			t.Fatalf("frame %d at %dms: %v", i, tc.at, got)
		}
	}
}

func TestPingPong(t *testing.T) {
	opt := Options{PingInterval: 40 * time.Millisecond, PongTimeout: 60 * time.Millisecond}
	t.Run("answered", func(t *testing.T) {
		// A pong deadline five times the client's usual answer time, so
		// that a loaded machine's scheduling delay is not a missing pong.
		opt := Options{PingInterval: 50 * time.Millisecond, PongTimeout: 250 * time.Millisecond}
		rec := newRecorder(true)
		ts := startServer(t, Config{}, rec, opt)
		c := dialGorilla(t, ts.url)
		defer c.Close()
		var pings atomic.Int32
		c.SetPingHandler(func(p string) error {
			pings.Add(1)
			return c.WriteControl(gorilla.PongMessage, []byte(p), time.Now().Add(time.Second))
		})
		go func() {
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		}()
		// The eighth ping comes after the pong deadlines of the first two:
		// had their pongs not counted, the loop would have closed it.
		testkit.WaitFor(t, 5*time.Second, "8 pings", func() (bool, string) { return pings.Load() >= 8, fmt.Sprint(pings.Load()) })
		select {
		case s := <-rec.closed:
			t.Fatalf("closed: %v", s)
		default:
		}
	})
	t.Run("unanswered", func(t *testing.T) {
		rec := newRecorder(true)
		ts := startServer(t, Config{}, rec, opt)
		rc := dialRaw(t, ts.addr, nil)
		t0 := time.Now()
		f, err := rc.read()
		if err != nil || f.op != 9 {
			t.Fatalf("want ping, got %+v %v", f, err)
		}
		rc.expectClose(1001)
		if s := rec.waitClosed(t); s != PongTimeout {
			t.Fatalf("state %v", s)
		}
		if d := time.Since(t0); d < 50*time.Millisecond {
			t.Fatalf("closed after %v", d)
		}
	})
}

func TestIdleTimeout(t *testing.T) {
	rec := newRecorder(true)
	// The timeout is six times the pace of the traffic, so that a loaded
	// machine's scheduling delays (-race, parallel packages) do not read as
	// silence.
	ts := startServer(t, Config{}, rec, Options{IdleTimeout: 300 * time.Millisecond})
	rc := dialRaw(t, ts.addr, nil)
	// Traffic keeps it open past the timeout...
	for range 20 {
		time.Sleep(50 * time.Millisecond) // paces the traffic over three idle timeouts; each pong shows it is open
		rc.write(frame(true, 0, 9, nil, true))
		if f, err := rc.read(); err != nil || f.op != 10 {
			t.Fatalf("pong: %+v %v", f, err)
		}
	}
	// ...silence closes it.
	t0 := time.Now()
	rc.expectClose(1001)
	if s := rec.waitClosed(t); s != ReadTimeout {
		t.Fatalf("state %v", s)
	}
	if d := time.Since(t0); d < 200*time.Millisecond {
		t.Fatalf("closed after %v", d)
	}
}

func TestAfterFunc(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)

	fired := make(chan string, 10)
	sc.AfterFunc(30*time.Millisecond, func() { fired <- "a" })
	stopped := sc.AfterFunc(20*time.Millisecond, func() { fired <- "stopped" })
	if !stopped.Stop() {
		t.Fatal("Stop of an armed timer reported false")
	}
	reset := sc.AfterFunc(10*time.Millisecond, func() { fired <- "reset" })
	reset.Reset(60 * time.Millisecond)
	// Login-window style: the callback closes the connection.
	sc.AfterFunc(100*time.Millisecond, func() { sc.Close(4001, "login timeout") })

	t0 := time.Now()
	for _, want := range []string{"a", "reset"} {
		select {
		case got := <-fired:
			if got != want {
				t.Fatalf("fired %q, want %q", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("timer did not fire")
		}
	}
	if d := time.Since(t0); d < 50*time.Millisecond {
		t.Fatalf("reset timer fired after %v", d)
	}
	_, _, err := c.ReadMessage()
	var ce *gorilla.CloseError
	if !errors.As(err, &ce) || ce.Code != 4001 {
		t.Fatalf("want 4001, got %v", err)
	}
	rec.waitClosed(t)
	// Timers of a closed connection never fire and leave the heap.
	late := sc.AfterFunc(time.Millisecond, func() { fired <- "late" })
	if late.Stop() { // never armed: a timer outside the heap cannot fire
		t.Fatal("a timer of a closed connection was armed")
	}
	if late.Reset(time.Millisecond) {
		t.Fatal("Reset on closed conn")
	}
	if n := armedTimers(ts.hub); n != 0 {
		t.Fatalf("%d timers left armed", n)
	}
}
