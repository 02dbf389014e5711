package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
	"github.com/alertd/alertd/upstream/sim"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// ingestBatch is one prepared request body.
type ingestBatch struct {
	body  []byte
	lines int
}

// ingestPlan is the pre-generated stream of one run.
type ingestPlan struct {
	batches []ingestBatch
	lines   int
	bytes   int64
	kinds   map[string]int
	genTime time.Duration
}

// prepareIngest draws the next n observations from the simulator and joins
// them into NDJSON bodies of batch lines each. This happens before the timed
// section.
func prepareIngest(s *sim.Simulator, n, batch int) *ingestPlan {
	start := time.Now()
	lines := s.Generate(n)
	p := &ingestPlan{lines: n, kinds: map[string]int{}}
	for _, l := range lines {
		p.kinds[kindOf(l)]++
	}
	for i := 0; i < len(lines); i += batch {
		j := min(i+batch, len(lines))
		size := 0
		for _, l := range lines[i:j] {
			size += len(l) + 1
		}
		body := make([]byte, 0, size)
		for _, l := range lines[i:j] {
			body = append(body, l...)
			body = append(body, '\n')
		}
		p.batches = append(p.batches, ingestBatch{body: body, lines: j - i})
		p.bytes += int64(len(body))
	}
	p.genTime = time.Since(start)
	return p
}

// kindOf reads the kind of a sim line, which always starts {"kind":"...".
func kindOf(l []byte) string {
	const pre = `{"kind":"`
	s := string(l[:min(len(l), 40)])
	if !strings.HasPrefix(s, pre) {
		return "?"
	}
	s = s[len(pre):]
	if i := strings.IndexByte(s, '"'); i >= 0 {
		return s[:i]
	}
	return "?"
}

// ingestAnswer is the envelope of the ingest API's answer.
type ingestAnswer struct {
	OK   bool `json:"ok"`
	Data struct {
		Accepted int64 `json:"accepted"`
		Rejected []struct {
			Index int    `json:"index"`
			Error string `json:"error"`
		} `json:"rejected"`
	} `json:"data"`
}

// ingestRun is the outcome of one timed ingest run.
type ingestRun struct {
	lines, requests      int
	accepted, rejected   int64
	failed               int // requests without a 2xx envelope
	elapsed              time.Duration
	lat                  latencies
	cpu                  time.Duration // server CPU within the timed section
	drain                time.Duration // time after the last answer until the server went idle
	drainCPU             time.Duration // server CPU during the drain
	settled              bool
	rssBefore, rssAfter  int64
	hwmAfter             int64
	clientCPU            time.Duration
	rejectSamples        []string
	failSamples          []string
	bodyBytes            int64
	generated            time.Duration
	dataDirAfter         int64
	kinds                map[string]int
	acceptedRate         float64 // accepted / elapsed
	processedRate        float64 // accepted / (elapsed + drain)
	perCPU, perCPUDrain  float64
	threadsAfter         int64
	serverDiedDuringRun  bool
	settleTimeoutReached bool
}

// runIngest posts the plan's bodies from conc workers, closed loop: each
// worker sends its next body as soon as the previous one is answered.
func runIngest(ctx context.Context, s *server, plan *ingestPlan, conc int, o *options) *ingestRun {
	hc := &fasthttp.HostClient{
		Addr:                s.Addr,
		Name:                "restbench",
		MaxConns:            conc,
		ReadTimeout:         60 * time.Second,
		WriteTimeout:        60 * time.Second,
		MaxResponseBodySize: 8 << 20,
	}
	defer hc.CloseIdleConnections()
	auth := "Bearer " + s.Token
	r := &ingestRun{lines: plan.lines, requests: len(plan.batches), bodyBytes: plan.bytes,
		generated: plan.genTime, kinds: plan.kinds}

	var (
		next     atomic.Int64
		accepted atomic.Int64
		rejected atomic.Int64
		failed   atomic.Int64
		mu       sync.Mutex
		wg       sync.WaitGroup
	)
	parts := make([][]time.Duration, conc)
	before := s.Sample()
	cBefore := alertdproc.SelfCPU()
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI(s.Base + upstream.IngestPath)
			req.Header.SetMethod(fasthttp.MethodPost)
			req.Header.Set(fasthttp.HeaderAuthorization, auth)
			req.Header.SetContentType(upstream.NDJSONContentType)
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(plan.batches) {
					return
				}
				b := plan.batches[i]
				req.SetBodyRaw(b.body)
				t0 := time.Now()
				err := hc.Do(req, resp)
				parts[w] = append(parts[w], time.Since(t0))
				var ans ingestAnswer
				switch {
				case err != nil:
					failed.Add(1)
					mu.Lock()
					r.failSamples = appendSample(r.failSamples, err.Error())
					mu.Unlock()
					continue
				case resp.StatusCode() != 200:
					failed.Add(1)
					mu.Lock()
					r.failSamples = appendSample(r.failSamples, fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode(), resp.Body()))
					mu.Unlock()
					continue
				}
				if err := json.Unmarshal(resp.Body(), &ans); err != nil || !ans.OK {
					failed.Add(1)
					mu.Lock()
					r.failSamples = appendSample(r.failSamples, fmt.Sprintf("bad answer: %.200s", resp.Body()))
					mu.Unlock()
					continue
				}
				accepted.Add(ans.Data.Accepted)
				rejected.Add(int64(len(ans.Data.Rejected)))
				if n := len(ans.Data.Rejected); n > 0 || ans.Data.Accepted != int64(b.lines) {
					mu.Lock()
					for _, rj := range ans.Data.Rejected {
						r.rejectSamples = appendSample(r.rejectSamples, fmt.Sprintf("line %d: %s", rj.Index, rj.Error))
					}
					if ans.Data.Accepted+int64(n) != int64(b.lines) {
						r.rejectSamples = appendSample(r.rejectSamples,
							fmt.Sprintf("batch of %d lines: accepted %d + rejected %d do not add up", b.lines, ans.Data.Accepted, n))
					}
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	r.clientCPU = alertdproc.SelfCPU() - cBefore
	after := s.Sample()
	r.serverDiedDuringRun = !s.Alive()
	r.accepted, r.rejected, r.failed = accepted.Load(), rejected.Load(), int(failed.Load())
	r.lat = merge(parts)
	r.cpu = after.CPU - before.CPU
	r.rssBefore = before.RSSKB

	// Asynchronous work left in mailboxes and the store writer.
	r.drain, r.settled = s.Settle(ctx, o.idleCores, o.settleInterval, o.drainTimeout)
	r.settleTimeoutReached = !r.settled && ctx.Err() == nil
	end := s.Sample()
	r.drainCPU = end.CPU - after.CPU
	r.rssAfter, r.hwmAfter, r.threadsAfter = end.RSSKB, end.HWMKB, end.Threads
	r.dataDirAfter = dirSize(s.DataDir)

	r.acceptedRate = float64(r.accepted) / r.elapsed.Seconds()
	r.processedRate = float64(r.accepted) / (r.elapsed + r.drain).Seconds()
	r.perCPU = perCPU(r.accepted, r.cpu)
	r.perCPUDrain = perCPU(r.accepted, r.cpu+r.drainCPU)
	return r
}

func appendSample(s []string, msg string) []string {
	if len(s) < 10 {
		return append(s, msg)
	}
	return s
}

// checkSimLines decodes every line locally once, so a rejection by the server
// can be told apart from a generator that produced a bad line.
func checkSimLines(plan *ingestPlan) (bad int, samples []string) {
	now := time.Now().UnixMilli()
	for _, b := range plan.batches {
		for _, l := range protocol.SplitNDJSON(b.body) {
			if _, err := protocol.DecodeObservation(l, now); err != nil {
				bad++
				if len(samples) < 5 {
					samples = append(samples, err.Error())
				}
			}
		}
	}
	return bad, samples
}

// sortedKinds lists "kind n" pairs, most frequent first.
func sortedKinds(m map[string]int) string {
	type kv struct {
		k string
		n int
	}
	var s []kv
	total := 0
	for k, n := range m {
		s = append(s, kv{k, n})
		total += n
	}
	sort.Slice(s, func(i, j int) bool { return s[i].n > s[j].n || s[i].n == s[j].n && s[i].k < s[j].k })
	var parts []string
	for _, e := range s {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", e.k, 100*float64(e.n)/float64(total)))
	}
	return strings.Join(parts, ", ")
}
