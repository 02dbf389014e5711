//go:build linux

package ws

import (
	"testing"

	gorilla "github.com/gorilla/websocket"
	"golang.org/x/sys/unix"
)

// The descriptor is closed only after the writers are out of it.
func TestNoFDLeak(t *testing.T) {
	before := countFDs(t)
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{})
	for range 50 {
		c := dialGorilla(t, ts.url)
		c.WriteMessage(gorilla.TextMessage, []byte("x"))
		c.ReadMessage()
		c.Close()
	}
	for range 50 {
		rec.waitClosed(t)
	}
	ts.stop()
	waitFor(t, func() bool { return countFDs(t) <= before })
}

func countFDs(t testing.TB) int {
	var st unix.Stat_t
	n := 0
	for fd := range 4096 {
		if unix.Fstat(fd, &st) == nil {
			n++
		}
	}
	return n
}
