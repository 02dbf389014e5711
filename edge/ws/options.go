package ws

import (
	"fmt"
	"log/slog"
	"runtime"
	"time"
)

// Options tune one connection; they are passed to Hub.Upgrade so that each
// socket family (B2B realtime, tweet-only, Tweet Alerts, product sockets) can
// use its own limits. Zero values take the defaults listed per field.
type Options struct {
	// ReadLimit is the largest inbound message (all fragments together).
	// Over it the connection closes with 1009. Default 64 KiB.
	ReadLimit int64
	// MaxFrame is the largest inbound frame payload. Default ReadLimit.
	MaxFrame int64
	// QueueLen is how many outbound frames may wait for the socket. A Send
	// that finds the queue full closes the connection as SlowConsumer.
	// Default 512.
	QueueLen int
	// WriteTimeout closes the socket when a write makes no progress for this
	// long. Default 5 s.
	WriteTimeout time.Duration
	// PingInterval, when positive, sends a ping frame this often; a pong must
	// follow within PongTimeout (default 10 s) or the connection closes with
	// PongTimeout.
	PingInterval time.Duration
	PongTimeout  time.Duration
	// IdleTimeout, when positive, closes a connection that sent no byte for
	// this long (ReadTimeout).
	IdleTimeout time.Duration
	// MaxFramesPerWindow, when positive, closes the connection (RateLimited)
	// on the frame that makes MaxFramesPerWindow+1 inbound frames (data,
	// continuation and control alike) within any FrameWindow (default 1 s).
	MaxFramesPerWindow int
	FrameWindow        time.Duration
	// Class is what the connection's deliveries (Conn.SendEvent) are
	// counted under in Hub.Deliveries, below MaxClasses (the sessions use
	// their socket kind). Default 0.
	Class uint8
}

// Defaults.
const (
	DefaultReadLimit    = 64 << 10
	DefaultQueueLen     = 512
	DefaultWriteTimeout = 5 * time.Second
	DefaultPongTimeout  = 10 * time.Second
	DefaultFrameWindow  = time.Second
)

// connOpts is Options resolved, in the compact form a Conn keeps.
type connOpts struct {
	readLimit    int64
	maxFrame     int64
	writeTimeout int64 // ns
	pingInterval int64
	pongTimeout  int64
	idleTimeout  int64
	frameWindow  int64
	queueLen     int32
	maxFrames    int32
	class        uint8
}

func (o *Options) resolve() connOpts {
	r := connOpts{
		readLimit:    o.ReadLimit,
		maxFrame:     o.MaxFrame,
		writeTimeout: int64(o.WriteTimeout),
		pingInterval: int64(o.PingInterval),
		pongTimeout:  int64(o.PongTimeout),
		idleTimeout:  int64(o.IdleTimeout),
		frameWindow:  int64(o.FrameWindow),
		queueLen:     int32(o.QueueLen),
		maxFrames:    int32(o.MaxFramesPerWindow),
		class:        min(o.Class, MaxClasses-1),
	}
	if r.readLimit <= 0 {
		r.readLimit = DefaultReadLimit
	}
	if r.maxFrame <= 0 || r.maxFrame > r.readLimit {
		r.maxFrame = r.readLimit
	}
	if r.writeTimeout <= 0 {
		r.writeTimeout = int64(DefaultWriteTimeout)
	}
	if r.pongTimeout <= 0 {
		r.pongTimeout = int64(DefaultPongTimeout)
	}
	if r.frameWindow <= 0 {
		r.frameWindow = int64(DefaultFrameWindow)
	}
	if r.queueLen <= 0 {
		r.queueLen = DefaultQueueLen
	}
	return r
}

// Config tunes a Hub.
type Config struct {
	// Writers is the number of goroutines draining write queues. Default
	// GOMAXPROCS, at least 2, at most 16.
	Writers int
	// ReadBufferSize is the loop's one shared read buffer. Default 64 KiB.
	ReadBufferSize int
	// LingerTimeout bounds how long a socket stays open after the server's
	// close frame went out, waiting for the peer to close its side (so that
	// unread inbound bytes do not turn the FIN into a reset that loses the
	// close frame). Default 1 s.
	LingerTimeout time.Duration
	// Logger gets handler panics and loop errors. Default slog.Default().
	Logger *slog.Logger
	// DirectWrites lets a sender write a frame itself, with one send(2),
	// when the connection is quiet (direct.go, epoll transport only);
	// otherwise every frame goes through the writers. It applies where the
	// writers write (SendWrite, or SendIOURing fallen back to it): the
	// io_uring path batches quiet sockets' frames instead. Off by default;
	// alertd serve turns it on.
	DirectWrites bool
	// Send is how the writers hand frames to the kernel (epoll transport
	// only): SendWrite, one send(2) or writev(2) per connection's turn, or
	// SendIOURing, the turns of many connections in one io_uring_enter
	// (writer_uring.go). Where io_uring cannot be set up the hub logs why
	// and writes (Hub.SendPath says which is in use). Default SendWrite.
	Send SendPath
}

// SendPath chooses the writers' system calls (Config.Send).
type SendPath uint8

const (
	SendWrite   SendPath = iota // send(2)/writev(2), one per connection's turn
	SendIOURing                 // io_uring: many connections' sends per io_uring_enter (Linux 5.19+)
)

// String is the --ws-send value of p.
func (p SendPath) String() string {
	if p == SendIOURing {
		return "io_uring"
	}
	return "write"
}

// ParseSendPath reads a --ws-send value: "write" or "io_uring".
func ParseSendPath(s string) (SendPath, error) {
	switch s {
	case "write", "":
		return SendWrite, nil
	case "io_uring":
		return SendIOURing, nil
	}
	return SendWrite, fmt.Errorf("ws: send path must be write or io_uring, not %q", s)
}

func (c *Config) resolve() {
	if c.Writers <= 0 {
		c.Writers = min(max(runtime.GOMAXPROCS(0), 2), 16)
	}
	if c.ReadBufferSize <= 0 {
		c.ReadBufferSize = 64 << 10
	}
	if c.ReadBufferSize < 4096 {
		c.ReadBufferSize = 4096
	}
	if c.LingerTimeout <= 0 {
		c.LingerTimeout = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}
