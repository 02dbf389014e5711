package ws

import (
	"math/bits"
	"sync"

	"github.com/gobwas/ws"
)

// buffer is a pooled, growable byte slice used to assemble inbound messages
// that span reads or fragments. Size classes are powers of four from 4 KiB
// to 1 MiB; larger buffers are allocated and dropped.
type buffer struct{ b []byte }

const (
	minClassShift = 12 // 4 KiB
	numClasses    = 5  // 4K 16K 64K 256K 1M
)

var bufferPools [numClasses]sync.Pool

func classOf(n int) int {
	if n <= 1<<minClassShift {
		return 0
	}
	c := (bits.Len(uint(n-1)) - minClassShift + 1) / 2
	return c
}

func getBuffer(n int) *buffer {
	c := classOf(n)
	if c >= numClasses {
		return &buffer{b: make([]byte, 0, n)}
	}
	if v := bufferPools[c].Get(); v != nil {
		b := v.(*buffer)
		b.b = b.b[:0]
		return b
	}
	return &buffer{b: make([]byte, 0, 1<<(minClassShift+2*c))}
}

func putBuffer(b *buffer) {
	c := cap(b.b)
	if c < 1<<minClassShift || c > 1<<(minClassShift+2*(numClasses-1)) || c&(c-1) != 0 {
		return
	}
	cl := classOf(c)
	if 1<<(minClassShift+2*cl) != c {
		return
	}
	bufferPools[cl].Put(b)
}

// append grows through the pool classes.
func (b *buffer) append(p []byte) {
	need := len(b.b) + len(p)
	if need > cap(b.b) {
		nb := getBuffer(max(need, 2*cap(b.b)))
		nb.b = append(nb.b, b.b...)
		old := b.b
		b.b = nb.b
		nb.b = old
		putBuffer(nb)
	}
	b.b = append(b.b, p...)
}

// queue is a pooled backing array for a connection's write queue; a Conn
// holds one only while it has frames waiting.
type queue struct{ f []outFrame }

// outFrame is one frame waiting to be written. p is shared with other
// connections and never modified. ev marks an event (Conn.SendEvent),
// counted once written, with at its ingest stamp (latency.Now; 0 unknown).
type outFrame struct {
	op ws.OpCode
	ev bool
	at int64
	p  []byte
}

var queuePool = sync.Pool{New: func() any { return &queue{f: make([]outFrame, 0, 16)} }}

func getQueue() *queue { return queuePool.Get().(*queue) }

func putQueue(q *queue) {
	clear(q.f)
	q.f = q.f[:0]
	if cap(q.f) <= 4096 {
		queuePool.Put(q)
	}
}
