// Package ws is the WebSocket transport shared by every socket of alertd (the
// B2B realtime opcode socket, the tweet-only sockets, the Tweet Alerts socket
// and the product sockets). It knows nothing of LOGIN or opcodes: it
// delivers connections and whole messages, and writes pre-encoded frames.
//
// # Two transports, one API
//
// On Linux the hub is the epoll transport described below (hub.go, conn.go,
// loop.go, writer.go, timer.go, upgrade.go: build tag linux && !wsportable).
// Elsewhere (macOS, Windows), and on Linux with the wsportable build tag, it
// is the portable transport (portable_*.go): the same Handler, Upgrade,
// Options, ClosedState, Stats and Deliveries, with a reader and a writer
// goroutine per connection and blocking socket calls; handler events still
// run one at a time, under the hub's loop lock. What both share: the
// handshake (handshake.go), the frame parser (parser.go) and encoder
// (frames.go), the pools, the options and the counters (stats.go). The
// behaviour tests run against both: `go test -tags wsportable ./edge/ws/`
// (make test does) runs them against the portable one.
//
// # Shape (epoll)
//
// A Hub owns 1 + Config.Writers goroutines, whatever the number of
// connections:
//
//   - the loop: one level-triggered epoll instance over every socket, the
//     timer heap of every connection (idle, ping, pong, write and linger
//     deadlines and Conn.AfterFunc), and a wake eventfd. Handler events and
//     AfterFunc callbacks all run here, so they are never concurrent and must
//     not block (hand work to an actor and return);
//   - the writers: a small pool draining per-connection write queues with
//     writev, several frames per system call (with Config.DirectWrites a
//     quiet connection's frame is written by its sender instead; with
//     Config.Send = SendIOURing many connections' frames go out in one
//     io_uring_enter: see Writes).
//
// # Upgrade
//
// A fasthttp handler does its own checks (key, plan, connection limits) and
// answers refusals itself, as plain-text 401 or 429 with headers and a body;
// otherwise it calls Hub.Upgrade. Upgrade validates the handshake and
// hijacks the connection without a fasthttp response. On fasthttp's hijack
// goroutine the hub calls the handler's OnPrepare (if it is a Preparer:
// Sends queue behind the 101 from then on), writes the 101, takes the
// bytes fasthttp had already buffered past the request, duplicates the
// socket's descriptor (the hijacked conn's UnsafeConn, unwrapped down to
// the *net.TCPConn), and lets fasthttp close its own copy: the hub owns the
// duplicate from then on, and fasthttp's settings (KeepHijackedConns or
// not, MaxConnsPerIP) keep working.
//
// Every Upgrade that returned nil ends in exactly one of OnOpen … OnClose
// or OnAbort: the client gone before the 101, the hub shutting down, or
// fasthttp closing the connection without handing it over (reported by
// Hub.ConnState, which the server must install) all end in OnAbort, so a
// handler that took something for the connection before Upgrade (a
// connection slot) always gives it back, without timers.
//
// # Reads
//
// Sockets are non-blocking. For each ready socket the loop makes one read
// into its one shared buffer (64 KiB) and feeds the bytes to the
// connection's incremental frame parser, which keeps only the header bytes
// seen so far, the current frame's position, and, for a message that spans
// reads or fragments, a pooled assembly buffer. A half-sent frame therefore
// never stalls the loop and needs no read deadline. A message that arrives
// whole in one read is unmasked in place and handed to OnMessage from the
// read buffer, without a copy: OnMessage's payload is valid only during the
// call.
//
// The parser enforces RFC 6455 as the Autobahn core cases do: client frames
// must be masked; control frames are at most 125 bytes and final; reserved
// bits (no extension is negotiated) and opcodes fail with 1002; continuation
// frames need an open message and a new message may not start inside one;
// control frames may sit between fragments; text must be UTF-8 (checked at
// message end, 1007); frames over Options.MaxFrame and messages over
// Options.ReadLimit fail with 1009 as soon as the header says so; pings are
// answered with the same payload; close frames are checked (length 1,
// invalid codes, non-UTF-8 reason: 1002) and echoed with the peer's code
// (1000 when it sent none).
//
// # Writes
//
// Conn.Send never blocks. With Config.DirectWrites on the write path (off
// by default; alertd serve sets it), a frame for a connection that is
// quiet (nothing queued or half-written, no writer on it, its last write at
// least directGap ago and not a batch; an event ingested at most directLag
// ago) is written by the sender itself with one non-blocking send(2)
// (direct.go). Otherwise Send appends the shared,
// never-modified payload to the connection's bounded queue; a full queue
// closes the connection as SlowConsumer and Send returns false. A
// connection going from idle to non-empty is put once on the writers' run
// queue; a writer swaps out the whole queue and writes it in as few system
// calls as it can: headers and payloads up to 8 KiB are packed into its own
// buffer (a batch that fits goes out with one send(2)), larger payloads are
// pointed at in place (writev). When the socket would block, the unwritten
// tail stays on the connection, EPOLLOUT is armed and the write deadline
// (Options.WriteTimeout) starts; the writer (or sender) moves on.
//
// With Config.Send = SendIOURing (--ws-send io_uring) a writer takes up to
// 256 scheduled connections at once, copies each one's turn into its own
// arena and submits one IORING_OP_SEND per connection with a single
// io_uring_enter (writer_uring.go, over internal/uring); the sockets being
// non-blocking, the sends complete inside that call, and a short one or
// EAGAIN leaves its tail pending behind EPOLLOUT exactly as above. The
// descriptor is closed only by the loop and only once no writer or sender
// is inside a system call on it, so a reused descriptor number can never
// receive another connection's bytes.
//
// Closing: Conn.Close queues a close frame after what is queued; protocol
// errors, timeouts and Shutdown queue theirs in place of what is queued
// (Shutdown keeps it). Once the close frame is written the hub shuts the
// write side and waits for the peer's close or EOF, at most
// Config.LingerTimeout, so that the close frame is not lost to a reset.
// OnClose then reports the first reason (ClosedState).
//
// # Memory
//
// An idle connection costs its Conn (parser state, flags, five embedded
// timer slots) plus heap entries for armed timers: about 0.7 KiB, measured by
// BenchmarkIdleConnMemory. No bufio reader or writer, no goroutine, and no
// buffer is kept while idle; queue arrays and assembly buffers come from
// pools and go back as soon as they are empty.
//
// TLS must end in front of the process (wss at a proxy): a hijacked TLS
// connection has no usable descriptor.
package ws
