//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// runResult is what one fixed-rate run measured.
type runResult struct {
	label    string
	rate     int // posts per second offered
	posts    int
	watchers int
	duration time.Duration // posting schedule length
	loadAvg  string

	sendErrors int
	firstError string
	lagP99     time.Duration // how late posts left against the schedule
	lagMax     time.Duration

	hist      *hdrhistogram.Histogram // ingest request sent → frame read, µs
	perSecond []*hdrhistogram.Histogram
	split     [2]*hdrhistogram.Histogram // -cluster: sessions on the ingesting node, on the others (loop.runStats)

	expected, delivered, extra int64
	shortPosts                 int             // posts that reached fewer than watchers sessions
	firstLat, spread           []time.Duration // per post: first delivery's latency, last − first
	drain                      time.Duration
	window                     time.Duration // first send to the end of the drain
	serverCPU, clientCPU       time.Duration
	rssEndKB                   int64
	payloadBytes               int64 // EVENT payload bytes received
}

func (r *runResult) missing() int64 { return max(r.expected-(r.delivered-r.extra), 0) }

// deliveriesPerSec is deliveries over the posting schedule.
func (r *runResult) deliveriesPerSec() float64 {
	return float64(r.delivered) / r.duration.Seconds()
}

func (r *runResult) perCPUSecond() float64 {
	if r.serverCPU <= 0 {
		return 0
	}
	return float64(r.delivered) / r.serverCPU.Seconds()
}

func (r *runResult) pct(q float64) time.Duration {
	return time.Duration(r.hist.ValueAtQuantile(q)) * time.Microsecond
}

// poster sends bench posts through the ingest API.
type poster struct {
	a       *admin
	w       *workload
	rec     *recorder
	loops   []*loop
	srv     *server
	workers int
	drain   time.Duration
	runs    int
	// -cluster: post seq is ingested through ingestAt[seq % len] (nil: a),
	// and sample sums the CPU of every node (nil: srv's).
	ingestAt []*admin
	sample   func() procSample
}

// sampleServer is the server's (or the nodes') CPU and memory now.
func (p *poster) sampleServer() procSample {
	if p.sample != nil {
		return p.sample()
	}
	return p.srv.Sample()
}

// postLine is one post observation by handle h, created now, whose text
// carries seq.
func postLine(dst []byte, w *workload, seq int, nowMs int64) []byte {
	hi := seq % w.handles
	h, uid := w.handleNames[hi], w.userIDs[hi]
	id := strconv.FormatInt(1800000000000000000+int64(seq), 10)
	dst = append(dst, `{"kind":"post","id":"`...)
	dst = append(dst, id...)
	dst = append(dst, `","created_at":`...)
	dst = strconv.AppendInt(dst, nowMs, 10)
	dst = append(dst, `,"type":"post","text":"fanout bench fbseq`...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, ` shipping the next release of the bench tooling today, latency numbers below and more soon, thanks everyone for the patience gm","cashtags":[],"media":[],"mentions":[],"author":{"id":"`...)
	dst = append(dst, uid...)
	dst = append(dst, `","handle":"`...)
	dst = append(dst, h...)
	dst = append(dst, `","name":"Bench `...)
	dst = append(dst, h...)
	dst = append(dst, `","avatar":"https://pbs.example.com/`...)
	dst = append(dst, h...)
	dst = append(dst, `.jpg","description":"fan-out bench account","verification":{"is_verified":false,"type":null},"affiliation":null,"stats":{"followers":1000,"following":100}},"in_reply_to":null,"quoted_tweet":null,"possibly_sensitive":false,"conversation_id":"`...)
	dst = append(dst, id...)
	dst = append(dst, `","entities":{"hashtags":[],"urls":[],"symbols":[]},"metrics":{"likes":0,"retweets":0,"replies":0,"quotes":0,"views":"0"}}`...)
	return append(dst, '\n')
}

type postJob struct {
	seq int
	due time.Time
}

// run ingests rate posts per second for d on an open-loop schedule (post i
// leaves at start + i/rate whatever the server's answers do), then waits up
// to p.drain for the deliveries, and measures.
func (p *poster) run(ctx context.Context, label string, rate int, d time.Duration) (*runResult, error) {
	n := int(float64(rate) * d.Seconds())
	runIdx := p.runs
	p.runs++
	first, ok := p.rec.reserve(runIdx, n)
	if !ok {
		return nil, fmt.Errorf("run %s: sequence table full (raise -max-posts)", label)
	}
	r := &runResult{label: label, rate: rate, posts: n, watchers: p.w.watchers, duration: d, loadAvg: loadAvg(),
		expected: int64(n) * int64(p.w.watchers)}
	jobs := make(chan postJob, n)
	lags := make([]time.Duration, n)
	var errs atomic.Int64
	var errMu sync.Mutex
	var wg sync.WaitGroup
	for range p.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 2048)
			for j := range jobs {
				sent := time.Now()
				buf = postLine(buf[:0], p.w, j.seq, sent.UnixMilli())
				p.rec.sendNs[j.seq].Store(p.rec.now())
				lags[j.seq-first] = sent.Sub(j.due)
				a := p.a
				if len(p.ingestAt) > 0 {
					a = p.ingestAt[j.seq%len(p.ingestAt)]
				}
				if err := a.ingest(ctx, buf); err != nil {
					if errs.Add(1) == 1 {
						errMu.Lock()
						r.firstError = err.Error()
						errMu.Unlock()
					}
				}
			}
		}()
	}
	s0, c0 := p.sampleServer(), alertdproc.SelfCPU()
	start := time.Now()
	for _, l := range p.loops {
		l.startRun(runIdx, p.rec.now())
	}
	interval := time.Duration(float64(time.Second) / float64(rate))
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if w := time.Until(due); w > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(w):
			}
		}
		if ctx.Err() != nil {
			break
		}
		jobs <- postJob{seq: first + i, due: due}
	}
	close(jobs)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	sendEnd := time.Now()
	for {
		got, _, _ := p.rec.received(first, n, p.w.watchers)
		if got >= r.expected || time.Since(sendEnd) > p.drain {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.drain = time.Since(sendEnd)
	s1, c1 := p.sampleServer(), alertdproc.SelfCPU()
	r.window = s1.At.Sub(start)
	r.serverCPU, r.clientCPU, r.rssEndKB = s1.CPU-s0.CPU, c1-c0, s1.RSSKB
	r.delivered, r.extra, r.shortPosts = p.rec.received(first, n, p.w.watchers)
	r.firstLat, r.spread = p.rec.spread(first, n)
	r.sendErrors = int(errs.Load())
	slices.Sort(lags)
	r.lagP99, r.lagMax = lags[min(n*99/100, n-1)], lags[n-1]
	r.hist = hdrhistogram.New(1, maxLatencyUs, 3)
	for _, l := range p.loops {
		l.mu.Lock()
		if runIdx < len(l.runs) {
			rs := l.runs[runIdx]
			r.hist.Merge(rs.hist)
			r.payloadBytes += rs.bytes
			for k, h := range rs.split {
				if h != nil {
					if r.split[k] == nil {
						r.split[k] = hdrhistogram.New(1, maxLatencyUs, 3)
					}
					r.split[k].Merge(h)
				}
			}
			for i, h := range rs.perSecond {
				for len(r.perSecond) <= i {
					r.perSecond = append(r.perSecond, hdrhistogram.New(1, maxLatencyUs, 2))
				}
				r.perSecond[i].Merge(h)
			}
		}
		l.mu.Unlock()
	}
	return r, nil
}
