//go:build linux

package main

import (
	"slices"
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
	first  []atomic.Int64 // earliest and latest arrival (recorder ns)
	last   []atomic.Int64
	next   int          // next free sequence number (main goroutine)
	stray  atomic.Int64 // deliveries with an unknown or unsent seq
}

func newRecorder(maxPosts int) *recorder {
	return &recorder{t0: time.Now(), sendNs: make([]atomic.Int64, maxPosts), recv: make([]atomic.Int32, maxPosts),
		run: make([]atomic.Int32, maxPosts), first: make([]atomic.Int64, maxPosts), last: make([]atomic.Int64, maxPosts)}
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
	for f := r.first[seq].Load(); f == 0 || now < f; f = r.first[seq].Load() {
		if r.first[seq].CompareAndSwap(f, now) {
			break
		}
	}
	for l := r.last[seq].Load(); now > l; l = r.last[seq].Load() {
		if r.last[seq].CompareAndSwap(l, now) {
			break
		}
	}
	return int(ri - 1), now - sent, true
}

// spread returns, for posts [first, first+n) that arrived at all, the
// latency of their first delivery and the time from first to last delivery.
func (r *recorder) spread(first, n int) (firstLat, spread []time.Duration) {
	for s := first; s < first+n; s++ {
		f, l, sent := r.first[s].Load(), r.last[s].Load(), r.sendNs[s].Load()
		if f == 0 || sent == 0 {
			continue
		}
		firstLat = append(firstLat, time.Duration(f-sent))
		spread = append(spread, time.Duration(l-f))
	}
	slices.Sort(firstLat)
	slices.Sort(spread)
	return firstLat, spread
}

// quantile of a sorted slice (nearest rank); 0 when empty.
func quantile(s []time.Duration, q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[min(int(q*float64(len(s))), len(s)-1)]
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
