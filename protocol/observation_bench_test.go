package protocol_test

import (
	"testing"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/sim"
)

// BenchmarkDecodeObservation decodes the simulator's steady mix (58% posts),
// one observation per op: the ingest path's per-line cost.
//
//	go test -run '^$' -bench DecodeObservation -benchmem ./protocol/
func BenchmarkDecodeObservation(b *testing.B) {
	lines := sim.New(sim.Config{Seed: 1, Users: 300, Rate: -1}).Generate(2000)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size / len(lines)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := protocol.DecodeObservation(lines[i%len(lines)], 1); err != nil {
			b.Fatal(err)
		}
	}
}
