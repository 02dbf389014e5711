// Package latency is the fixed-bucket histogram that alertd's delivery
// paths feed and /metrics reads (alertd_delivery_latency_seconds). An
// observation is a few comparisons and two atomic adds on memory the
// observer owns (each socket writer keeps its own histograms), so the hot
// path takes no lock, makes no allocation and shares no cache line; the
// scrape sums the owners' histograms into a Snapshot.
package latency

import (
	"sync/atomic"
	"time"
)

// epoch anchors Now on the process's monotonic clock.
var epoch = time.Now()

// Now is a stamp for latencies measured inside this process: nanoseconds
// on the monotonic clock since the process started, never 0 (0 means "no
// stamp"). It is half the cost of time.Now (one clock read, not two), and a
// wall-clock step cannot bend it. Stamps mean nothing to another process.
func Now() int64 { return int64(time.Since(epoch)) + 1 }

// Since is the latency from a stamp taken with Now to now.
func Since(stamp, now int64) time.Duration { return time.Duration(now - stamp) }

// Bounds are the buckets' upper bounds (Prometheus `le`): half a
// millisecond to ten seconds, a socket delivery being a few milliseconds and
// a webhook up to a retry's backoff.
var Bounds = [...]time.Duration{
	500 * time.Microsecond, time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2500 * time.Millisecond,
	5 * time.Second, 10 * time.Second,
}

// Buckets is the number of buckets, the last one unbounded (+Inf).
const Buckets = len(Bounds) + 1

// Histogram counts observations per bucket. The zero value is ready; it is
// safe for concurrent use, and cheapest when one goroutine feeds it.
type Histogram struct {
	counts [Buckets]atomic.Uint64
	sum    atomic.Int64 // ns
}

// Bucket is the index of the bucket d falls in.
func Bucket(d time.Duration) int {
	for i, b := range Bounds {
		if d <= b {
			return i
		}
	}
	return len(Bounds)
}

// Observe records one latency; a negative one (clocks of two machines, or a
// stamp from the future) counts as zero.
func (h *Histogram) Observe(d time.Duration) {
	d = max(d, 0)
	h.counts[Bucket(d)].Add(1)
	h.sum.Add(int64(d))
}

// Snapshot is a histogram's counts at one moment (not cumulative).
type Snapshot struct {
	Counts [Buckets]uint64
	Sum    time.Duration
}

// AddTo adds the histogram's counts into s, so that several owners' add up.
func (h *Histogram) AddTo(s *Snapshot) {
	for i := range h.counts {
		s.Counts[i] += h.counts[i].Load()
	}
	s.Sum += time.Duration(h.sum.Load())
}

// Add adds o into s.
func (s *Snapshot) Add(o Snapshot) {
	for i := range o.Counts {
		s.Counts[i] += o.Counts[i]
	}
	s.Sum += o.Sum
}

// Count is the number of observations.
func (s *Snapshot) Count() uint64 {
	var n uint64
	for _, c := range s.Counts {
		n += c
	}
	return n
}
