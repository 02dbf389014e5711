package ws

import "github.com/gobwas/ws"

// The send calls of a Conn, the same on both transports: each queues one
// frame through the transport's enqueue, which never blocks.

// Send queues msg as one text frame. It never blocks. msg is shared, not
// copied: neither the caller nor the connection may change it afterwards,
// and the same slice can go to any number of connections. Send returns
// false when the connection is closing, or when the queue was full: then
// the connection is closed as SlowConsumer.
func (c *Conn) Send(msg []byte) bool { return c.enqueue(outFrame{op: ws.OpText, p: msg}) }

// SendEvent is Send of an event: once written, the frame counts as a
// delivery of the connection's Options.Class, and its latency from at
// (a latency.Now stamp of when the event's observation was ingested; 0
// when unknown) is recorded (Hub.Deliveries).
func (c *Conn) SendEvent(msg []byte, at int64) bool {
	return c.enqueue(outFrame{op: ws.OpText, ev: true, at: at, p: msg})
}

// SendBinary is Send with a binary frame.
func (c *Conn) SendBinary(msg []byte) bool { return c.enqueue(outFrame{op: ws.OpBinary, p: msg}) }

// SendControl queues a ping or pong frame (payload of at most 125 bytes),
// in order with data frames. It reports false for other opcodes, payloads
// over 125 bytes, or a closing connection; use Close for close frames.
func (c *Conn) SendControl(op ws.OpCode, payload []byte) bool {
	if (op != ws.OpPing && op != ws.OpPong) || len(payload) > 125 {
		return false
	}
	return c.enqueue(outFrame{op: op, p: payload})
}
