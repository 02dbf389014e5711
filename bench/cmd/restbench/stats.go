package main

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// latencies holds every request's latency of one run. Runs are short enough
// (a few million requests at most) that keeping the samples and sorting them
// is exact and cheap; see README for why not HdrHistogram.
type latencies []time.Duration

// merge concatenates per-worker samples and sorts them.
func merge(parts [][]time.Duration) latencies {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]time.Duration, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	slices.Sort(out)
	return out
}

// pct is the q-quantile (0 < q <= 1) by the nearest-rank method; the slice
// must be sorted.
func (l latencies) pct(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(l)))) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(l) {
		i = len(l) - 1
	}
	return l[i]
}

func (l latencies) max() time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[len(l)-1]
}

// median of a few run figures (the middle one, or the mean of the two middle
// ones for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func medianDur(xs []time.Duration) time.Duration {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x)
	}
	return time.Duration(median(f))
}

// fmtDur prints a latency with a unit that keeps three significant digits.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

// fmtNum prints a rate with thousands separators.
func fmtNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	n := int64(math.Round(v))
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func fmtMB(kb int64) string { return fmt.Sprintf("%.0f MiB", float64(kb)/1024) }

func fmtCPU(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// perCPU is how many operations one server CPU-second did.
func perCPU(n int64, cpu time.Duration) float64 {
	if cpu <= 0 {
		return math.NaN()
	}
	return float64(n) / cpu.Seconds()
}
