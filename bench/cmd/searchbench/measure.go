package main

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// latencies summarises a set of timings.
type latencies struct {
	n                  int
	p50, p90, p99, max time.Duration
}

func summarize(ds []time.Duration) latencies {
	if len(ds) == 0 {
		return latencies{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return latencies{n: len(s), p50: at(0.50), p90: at(0.90), p99: at(0.99), max: s[len(s)-1]}
}

// kindResult is one query kind's in-process figures.
type kindResult struct {
	name     string
	lat      latencies
	hits     float64 // mean posts per answer
	full     float64 // share of answers with has_next_page
	bytes    float64 // mean response data size
	examples []string
}

// searchOnce parses, searches and encodes one query, as the handler does.
func searchOnce(w *world, q string, at time.Time, buf []byte) (casearch.Result, []byte, error) {
	body, _ := json.Marshal(map[string]string{"query": q})
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return casearch.Result{}, buf, err
	}
	req, err := casearch.ParseRequest(m, at, 24*time.Hour)
	if err != nil {
		return casearch.Result{}, buf, err
	}
	res, err := w.svc.Search(context.Background(), &req)
	if err != nil {
		return res, buf, err
	}
	return res, casearch.AppendData(buf[:0], &req, &res), nil
}

// timeKind times n searches of kind k, one after another.
func timeKind(w *world, k queryKind, n int) kindResult {
	rng := rand.New(rand.NewPCG(42, uint64(len(k.name))))
	out := kindResult{name: k.name}
	ds := make([]time.Duration, 0, n)
	var buf []byte
	var hits, full, bytes int
	for i := 0; i < n+n/10; i++ { // the first tenth warms up, untimed
		q := k.next(rng)
		t0 := time.Now()
		res, b, err := searchOnce(w, q, w.end, buf)
		d := time.Since(t0)
		if err != nil {
			panic(err)
		}
		buf = b
		if i < n/10 {
			continue
		}
		ds = append(ds, d)
		hits += len(res.Hits)
		bytes += len(b)
		if res.HasNext {
			full++
		}
		if len(out.examples) < 3 {
			out.examples = append(out.examples, q)
		}
	}
	out.lat = summarize(ds)
	out.hits = float64(hits) / float64(n)
	out.full = float64(full) / float64(n)
	out.bytes = float64(bytes) / float64(n)
	return out
}

// mixedResult is the searches-under-ingest run.
type mixedResult struct {
	lat      latencies
	searches int
	inserted int
	wanted   int
	dur      time.Duration
}

// mixedRun searches from two goroutines (every kind in turn) while a third
// feeds posts at o.mixedRate per second, as the indexer actor would.
func mixedRun(w *world, o options) mixedResult {
	lines := w.sim.Generate(int(float64(o.mixedRate) * o.mixedFor.Seconds()))
	var obs []*protocol.Observation
	for _, l := range lines {
		if ob, err := protocol.DecodeObservation(l, w.end.UnixMilli()); err == nil && ob.Post != nil {
			obs = append(obs, ob)
		}
	}
	kinds := w.kinds()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []time.Duration
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			var ds []time.Duration
			var buf []byte
			for i := 0; ; i++ {
				select {
				case <-stop:
					mu.Lock()
					all = append(all, ds...)
					mu.Unlock()
					return
				default:
				}
				q := kinds[i%len(kinds)].next(rng)
				t0 := time.Now()
				_, b, err := searchOnce(w, q, w.end, buf)
				ds = append(ds, time.Since(t0))
				if err != nil {
					panic(err)
				}
				buf = b
			}
		}()
	}
	var inserted atomic.Int64
	start := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	for i := 0; i < len(obs) && time.Since(start) < o.mixedFor; {
		<-tick.C
		// Catch up to the rate: what is due by now, not a fixed share per tick.
		due := min(len(obs), int(float64(o.mixedRate)*time.Since(start).Seconds()))
		for ; i < due; i++ {
			w.svc.Observe(obs[i].Post)
			inserted.Add(1)
		}
	}
	tick.Stop()
	dur := time.Since(start)
	close(stop)
	wg.Wait()
	return mixedResult{lat: summarize(all), searches: len(all), inserted: int(inserted.Load()), wanted: len(obs), dur: dur}
}
