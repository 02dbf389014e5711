//go:build stageclock

package stageclock

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/alertd/alertd/internal/latency"
)

// On is whether the clock is compiled in (-tags stageclock).
const On = true

// every is how many finished posts one log line sums up.
const every = 500

var (
	mu   sync.Mutex
	recs = map[int64]*record{}
	done [][Stages]int64
)

type record struct {
	at     [Stages]int64
	closed bool // reached SendDone: later stamps (the fan-out's other sends) are ignored
}

// Mark stamps stage s of the post whose ingest stamp is key, the first
// time only (a fan-out reaches Delivered and the sends a thousand times).
// SendDone closes the post's record.
func Mark(key int64, s Stage) {
	if key <= 0 || s >= Stages {
		return
	}
	now := latency.Now()
	mu.Lock()
	defer mu.Unlock()
	r := recs[key]
	if r == nil {
		if s >= SendStart {
			return // a send of a post whose record was dropped
		}
		if len(recs) >= 100_000 { // old posts, closed or never sent
			clear(recs)
		}
		r = &record{}
		r.at[Accepted] = key
		recs[key] = r
	}
	if r.closed || r.at[s] != 0 {
		return
	}
	r.at[s] = now
	if s != SendDone {
		return
	}
	r.closed = true
	done = append(done, r.at)
	if len(done) >= every {
		report(done)
		done = done[:0]
	}
}

// report logs, per stage, the median and p90 of the time since the stage
// before it that the post passed (a stage a post skipped is left out of its
// sums), and the whole way from Accepted to SendDone.
func report(recs [][Stages]int64) {
	var b strings.Builder
	fmt.Fprintf(&b, "stageclock: %d posts, µs since the previous stage, p50/p90:", len(recs))
	deltas := make([]int64, 0, len(recs))
	for s := Logged; s < Stages; s++ {
		deltas = deltas[:0]
		for _, r := range recs {
			if r[s] == 0 {
				continue
			}
			prev := s - 1
			for prev > Accepted && r[prev] == 0 {
				prev--
			}
			deltas = append(deltas, r[s]-r[prev])
		}
		p50, p90 := quantiles(deltas)
		fmt.Fprintf(&b, " %s %.0f/%.0f", s, p50, p90)
	}
	deltas = deltas[:0]
	for _, r := range recs {
		deltas = append(deltas, r[SendDone]-r[Accepted])
	}
	p50, p90 := quantiles(deltas)
	fmt.Fprintf(&b, " | accepted→send_done %.0f/%.0f\n", p50, p90)
	os.Stderr.WriteString(b.String())
}

func quantiles(ns []int64) (p50, p90 float64) {
	if len(ns) == 0 {
		return 0, 0
	}
	slices.Sort(ns)
	return float64(ns[len(ns)/2]) / 1e3, float64(ns[len(ns)*9/10]) / 1e3
}
