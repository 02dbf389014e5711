package console

import (
	"sync"
	"time"
)

// Counters are the engine's running totals the console turns into rates.
// Each only grows (a restart starts them at zero again).
type Counters struct {
	IngestAccepted    uint64 // observations ingest accepted
	IngestRejected    uint64 // lines ingest refused
	Frames            uint64 // WebSocket frames written, every socket kind
	WebhooksDelivered uint64 // webhook deliveries answered 2xx, every product
	WebhooksFailed    uint64 // webhook deliveries that failed for good
}

// Rate is what happened in one second.
type Rate struct {
	At                int64  `json:"t"` // epoch ms of the second's end
	IngestAccepted    uint64 `json:"ingest_accepted"`
	IngestRejected    uint64 `json:"ingest_rejected"`
	Frames            uint64 `json:"frames"`
	WebhooksDelivered uint64 `json:"webhooks_delivered"`
	WebhooksFailed    uint64 `json:"webhooks_failed"`
}

// Window is how much history the sampler keeps: the console's chart.
const Window = 10 * time.Minute

// Sampler reads the counters once a second and keeps the last Window of
// per-second differences in a ring. One goroutine (Start, stopped by Stop)
// samples; mu guards the ring and last, held only to copy a few words.
type Sampler struct {
	read func() Counters

	mu   sync.Mutex
	ring []Rate // len Window/second, filled from next backwards
	next int    // where the next sample goes
	n    int    // samples held
	last Counters
	seen bool // last holds a reading

	stop chan struct{}
	done chan struct{}
}

// NewSampler samples read; Start begins.
func NewSampler(read func() Counters) *Sampler {
	return &Sampler{read: read, ring: make([]Rate, int(Window/time.Second))}
}

// Start samples once a second until Stop.
func (s *Sampler) Start() {
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		s.Sample(time.Now())
		for {
			select {
			case <-s.stop:
				return
			case now := <-t.C:
				s.Sample(now)
			}
		}
	}()
}

// Stop ends the sampling goroutine and waits for it; a Sampler never
// started stops at once.
func (s *Sampler) Stop() {
	if s.stop == nil {
		return
	}
	close(s.stop)
	<-s.done
	s.stop = nil
}

// Sample reads the counters at now and records the difference since the
// last reading (the first reading only sets the baseline).
func (s *Sampler) Sample(now time.Time) {
	c := s.read()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen {
		s.ring[s.next] = Rate{At: now.UnixMilli(),
			IngestAccepted: delta(c.IngestAccepted, s.last.IngestAccepted), IngestRejected: delta(c.IngestRejected, s.last.IngestRejected),
			Frames: delta(c.Frames, s.last.Frames), WebhooksDelivered: delta(c.WebhooksDelivered, s.last.WebhooksDelivered),
			WebhooksFailed: delta(c.WebhooksFailed, s.last.WebhooksFailed)}
		s.next = (s.next + 1) % len(s.ring)
		s.n = min(s.n+1, len(s.ring))
	}
	s.last, s.seen = c, true
}

// delta is cur-prev, 0 when a counter went back (a source was replaced).
func delta(cur, prev uint64) uint64 {
	if cur < prev {
		return 0
	}
	return cur - prev
}

// Rates are the samples held, oldest first.
func (s *Sampler) Rates() []Rate {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Rate, 0, s.n)
	for i := s.n; i > 0; i-- {
		out = append(out, s.ring[(s.next-i+len(s.ring))%len(s.ring)])
	}
	return out
}

// Totals are the counters now (read from their owners, not the last sample).
func (s *Sampler) Totals() Counters { return s.read() }
