//go:build linux

package main

import (
	"sync/atomic"
	"time"
)

// recorder keeps, per post sequence number, when its ingest request was sent
// and how many deliveries arrived, and which run it belongs to. Sequence
// numbers are global over the whole bench; runs take consecutive ranges.
type recorder struct {
	t0     time.Time
	sendNs []atomic.Int64 // monotonic ns since t0; 0 until sent
	recv   []atomic.Int32
	run    []atomic.Int32 // run index + 1; 0 before scheduling
	next   int            // next free sequence number (main goroutine)
	stray  atomic.Int64   // deliveries with an unknown or unsent seq
}

func newRecorder(maxPosts int) *recorder {
	return &recorder{t0: time.Now(), sendNs: make([]atomic.Int64, maxPosts), recv: make([]atomic.Int32, maxPosts),
		run: make([]atomic.Int32, maxPosts)}
}

// now is monotonic ns since the recorder started.
func (r *recorder) now() int64 { return int64(time.Since(r.t0)) }

// reserve takes n sequence numbers for run; false when the table is full.
func (r *recorder) reserve(run, n int) (first int, ok bool) {
	if r.next+n > len(r.sendNs) {
		return 0, false
	}
	first = r.next
	for s := first; s < first+n; s++ {
		r.run[s].Store(int32(run + 1))
	}
	r.next += n
	return first, true
}

// arrival notes a delivery of seq at now and returns its run and latency;
// ok false for a seq the bench did not send.
func (r *recorder) arrival(seq int, now int64) (run int, lat int64, ok bool) {
	if seq < 0 || seq >= len(r.sendNs) {
		r.stray.Add(1)
		return 0, 0, false
	}
	sent := r.sendNs[seq].Load()
	ri := r.run[seq].Load()
	if sent == 0 || ri == 0 {
		r.stray.Add(1)
		return 0, 0, false
	}
	r.recv[seq].Add(1)
	return int(ri - 1), now - sent, true
}

// received sums deliveries of seqs [first, first+n) and counts the surplus
// over want per post (duplicates) and posts with fewer than want.
func (r *recorder) received(first, n, want int) (got, extra int64, short int) {
	for s := first; s < first+n; s++ {
		c := int64(r.recv[s].Load())
		got += c
		if c > int64(want) {
			extra += c - int64(want)
		}
		if c < int64(want) {
			short++
		}
	}
	return got, extra, short
}
