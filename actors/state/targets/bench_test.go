package targets

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
)

// countingStore counts the committer's rounds.
type countingStore struct {
	persistence.Store
	rounds atomic.Int64
}

func (s *countingStore) WriteTargets(ctx context.Context, put []persistence.Target, del []persistence.TargetKey) ([]persistence.Target, error) {
	s.rounds.Add(1)
	return s.Store.WriteTargets(ctx, put, del)
}

// BenchmarkRegistryAdd: adds from 16 goroutines per GOMAXPROCS over the
// embedded store (what POST /v1/dt/targets costs below HTTP); it reports
// rows per transaction.
func BenchmarkRegistryAdd(b *testing.B) {
	st, err := embedded.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const accounts = 1000
	for a := range accounts {
		if _, err := st.CreateAccount(context.Background(), fmt.Sprintf("acct%d", a), time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	cs := &countingStore{Store: st}
	r := NewRegistry(cs, nil, nil, WithLogger(quiet))
	defer r.Close()
	var next atomic.Int64
	id := "42"
	b.SetParallelism(8)
	cpu := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			if _, err := r.Add(context.Background(), fmt.Sprintf("acct%d", i%accounts), fmt.Sprintf("h%d", i), "", &id, 1<<30); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/add")
	b.ReportMetric(float64(b.N)/float64(max(cs.rounds.Load(), 1)), "rows/txn")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "adds/s")
}

// cpuTime is the process's CPU time so far (the benchmark shares a noisy
// machine: CPU per add says more than adds per second).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
