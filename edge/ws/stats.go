package ws

import (
	"sync/atomic"

	"github.com/alertd/alertd/internal/latency"
)

// counters are the hub's totals, read by Stats.
type counters struct {
	accepted      atomic.Uint64
	closed        atomic.Uint64
	readCalls     atomic.Uint64
	writeCalls    atomic.Uint64
	framesWritten atomic.Uint64
	bytesWritten  atomic.Uint64
	slowConsumers atomic.Uint64
}

// Stats is a snapshot of the hub's counters.
type Stats struct {
	Open          int64  // open connections (the /health gauge)
	Accepted      uint64 // connections upgraded
	Closed        uint64 // connections released
	ReadCalls     uint64 // read system calls that returned data
	WriteCalls    uint64 // write system calls
	FramesWritten uint64
	BytesWritten  uint64
	SlowConsumers uint64
}

// Stats returns the counters.
func (h *Hub) Stats() Stats {
	var calls, frames, bytes uint64
	for _, d := range h.deliveryStats() {
		calls += d.writeCalls.Load()
		frames += d.framesWritten.Load()
		bytes += d.bytesWritten.Load()
	}
	return Stats{
		Open:          h.open.Load(),
		Accepted:      h.stats.accepted.Load(),
		Closed:        h.stats.closed.Load(),
		ReadCalls:     h.stats.readCalls.Load(),
		WriteCalls:    h.stats.writeCalls.Load() + calls,
		FramesWritten: h.stats.framesWritten.Load() + frames,
		BytesWritten:  h.stats.bytesWritten.Load() + bytes,
		SlowConsumers: h.stats.slowConsumers.Load(),
	}
}

// MaxClasses bounds Options.Class.
const MaxClasses = 4

// deliveries are the events (Conn.SendEvent) one writer has written, per
// class: those with an ingest time in a latency histogram, the others
// counted. Each writer owns one, so the adds never contend; the padding
// keeps writers' counters off each other's cache lines.
type deliveries struct {
	_       [64]byte
	untimed [MaxClasses]atomic.Uint64
	lat     [MaxClasses]latency.Histogram
	// the writes behind them (epoll transport; the portable one counts in
	// the hub's counters)
	writeCalls, framesWritten, bytesWritten atomic.Uint64
	_                                       [64]byte
}

// account counts the events among frames, written just now, of a
// connection of class.
func (d *deliveries) account(class uint8, frames []outFrame) { d.accountAt(class, frames, 0) }

// accountAt is account with the time they were written (a latency.Now
// stamp; 0: read the clock if needed), so that a batch of many
// connections' sends that completed together reads the clock once.
func (d *deliveries) accountAt(class uint8, frames []outFrame, now int64) {
	for i := range frames {
		f := &frames[i]
		switch {
		case !f.ev:
		case f.at > 0:
			if now == 0 {
				now = latency.Now()
			}
			d.lat[class].Observe(latency.Since(f.at, now))
		default:
			d.untimed[class].Add(1)
		}
	}
}

// account1 is account of one frame.
func (d *deliveries) account1(class uint8, f *outFrame) {
	switch {
	case !f.ev:
	case f.at > 0:
		d.lat[class].Observe(latency.Since(f.at, latency.Now()))
	default:
		d.untimed[class].Add(1)
	}
}

// Deliveries returns the events written to connections of class since the
// hub started: how many, and the latency histogram of those that carried
// their ingest time. Read at scrape time; it sums the writers' counters.
func (h *Hub) Deliveries(class uint8) (n uint64, lat latency.Snapshot) {
	if class >= MaxClasses {
		return 0, lat
	}
	for _, d := range h.deliveryStats() {
		n += d.untimed[class].Load()
		d.lat[class].AddTo(&lat)
	}
	return n + lat.Count(), lat
}
