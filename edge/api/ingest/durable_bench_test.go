package ingest

import (
	"bytes"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence/ingestlog"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/sim"
)

// discard is a router that drops what it is given.
type discard struct{ n atomic.Int64 }

func (d *discard) Route(*protocol.Observation) { d.n.Add(1) }
func (d *discard) Backlog() int64              { return 0 }
func (d *discard) BacklogBytes() int64         { return 0 }

// BenchmarkDurableAccept is the HTTP ingest path's work for one 500-line
// NDJSON body of the simulator's observations, with the log fsyncing on the
// test's temp dir and 8 requests in flight: wall time per request, and the
// process's CPU per observation (cpu-µs/obs), which is the figure that
// does not depend on the disk.
//
//	go test -run '^$' -bench DurableAccept -benchtime 400x ./edge/api/ingest/
func BenchmarkDurableAccept(b *testing.B) {
	lines := sim.New(sim.Config{Seed: 1, Users: 300, Rate: -1}).Generate(500)
	body := append(bytes.Join(lines, []byte("\n")), '\n')
	log, err := ingestlog.Open(b.TempDir(), ingestlog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	rt := &discard{}
	d := NewDurable(rt, log)
	b.SetBytes(int64(len(body)))
	b.SetParallelism(4) // 4 per GOMAXPROCS
	cpu0 := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := d.AcceptNDJSON(body, 1, func(int, error) { b.Error("rejected") }); err != nil {
				b.Error(err)
			}
		}
	})
	b.StopTimer()
	if n := rt.n.Load(); n > 0 {
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n), "cpu-µs/obs")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
