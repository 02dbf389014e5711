//go:build !linux || wsportable

package ws

// A connection has a reader and a writer goroutine, its read buffer and
// fasthttp's (held by the hijack goroutine, which is the reader).
const (
	goroutinesPerConn = 2
	maxIdleConnHeap   = 32 << 10
)

// armedTimers is the number of timers armed on the hub's connections.
func armedTimers(h *Hub) int { return int(h.armed.Load()) }
