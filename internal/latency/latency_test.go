package latency

import (
	"testing"
	"time"
)

func TestBucket(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {500 * time.Microsecond, 0}, {501 * time.Microsecond, 1}, {time.Millisecond, 1},
		{3 * time.Millisecond, 3}, {10 * time.Second, len(Bounds) - 1}, {11 * time.Second, len(Bounds)},
	} {
		if got := Bucket(c.d); got != c.want {
			t.Errorf("Bucket(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

func TestObserveAndSnapshot(t *testing.T) {
	var a, b Histogram
	a.Observe(2 * time.Millisecond)
	a.Observe(-time.Second) // counts as zero
	b.Observe(time.Minute)
	var s Snapshot
	a.AddTo(&s)
	b.AddTo(&s)
	if s.Count() != 3 || s.Counts[0] != 1 || s.Counts[2] != 1 || s.Counts[len(Bounds)] != 1 {
		t.Errorf("counts %v", s.Counts)
	}
	if s.Sum != 2*time.Millisecond+time.Minute {
		t.Errorf("sum %v", s.Sum)
	}
	var total Snapshot
	total.Add(s)
	total.Add(s)
	if total.Count() != 6 || total.Sum != 2*s.Sum {
		t.Errorf("Add: %d %v", total.Count(), total.Sum)
	}
}

func BenchmarkObserve(b *testing.B) {
	var h Histogram
	for i := range b.N {
		h.Observe(time.Duration(i&1023) * 10 * time.Microsecond)
	}
}
