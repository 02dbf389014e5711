package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// runResult is one run of one binary on one store.
type runResult struct {
	subject, store string
	pipeline       int           // requests in flight per connection
	n              int           // adds sent
	created        int           // 201 answers
	resolved       int           // 201 answers with a social_user_id
	listed         int           // targets counted back through GET /v1/dt/targets
	status         map[int]int   // answers by status
	errSample      string        // first unexpected answer or transport error
	elapsed        time.Duration // first request sent to last answer
	lat            latencies
	cpu            time.Duration // server CPU during the adds
	clientCPU      time.Duration // this process's CPU during the adds
	rssAfter       int64
	profile        *profile
	load1          string // load average when the adds began
}

func (r *runResult) rate() float64 { return float64(r.created) / r.elapsed.Seconds() }

// ceiling is the adds/s the run's server and client CPU per add allow on
// two otherwise idle cores.
func (r *runResult) ceiling() float64 {
	if r.created == 0 {
		return 0
	}
	perAdd := (r.cpu + r.clientCPU).Seconds() / float64(r.created)
	return 2 / perAdd
}

func (r *runResult) cpuPer1000() time.Duration {
	if r.created == 0 {
		return 0
	}
	return r.cpu * 1000 / time.Duration(r.created)
}

// runOnce starts the binary on a fresh store, prepares accounts and users,
// and times the adds.
func runOnce(ctx context.Context, o *options, sub subject, store string, depth int, dir string, profiled bool) (*runResult, error) {
	dbURL := ""
	if store == "postgres" {
		u, drop, err := alertdproc.FreshDatabase(ctx, o.databaseURL, "targetsbench")
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := drop(); err != nil {
				logf("%v", err)
			}
		}()
		dbURL = u
	}
	opts := alertdproc.Options{Bin: sub.bin, Dir: dir, DatabaseURL: dbURL,
		DropEnv:     []string{"DATABASE_URL=", "ALERTD_"},
		SysProcAttr: alertdproc.KillOnParentDeath(), Ready: 60 * time.Second, Grace: 20 * time.Second}
	if profiled {
		opts.Internal = true
	}
	srv, err := alertdproc.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	c := newClient(srv, max(o.conc, 8))
	defer c.hc.CloseIdleConnections()
	keys, err := issueKeys(ctx, c, o.accounts)
	if err != nil {
		return nil, err
	}
	if err := ingestUsers(ctx, c, o.handles, keys[0]); err != nil {
		return nil, err
	}
	bodies, owners := plan(o)
	res := &runResult{subject: sub.name, store: store, pipeline: depth, n: len(bodies), status: map[int]int{}}
	workers := o.conc * depth
	if o.client == "raw" {
		workers = o.conc
	}
	// adds[w] is worker w's fasthttp client: the HostClient (one request at
	// a time per connection), or one pipelined connection per depth workers.
	adds := make([]doer, workers)
	var reqs [][]byte
	if o.client == "raw" {
		reqs = make([][]byte, len(bodies))
		for i := range bodies {
			reqs[i] = rawRequest(srv.Addr, "/v1/dt/targets", keys[owners[i]], bodies[i])
		}
	} else {
		for w := range adds {
			adds[w] = c.hc
			if depth > 1 {
				if w < o.conc {
					adds[w] = c.pipeline(srv, depth)
				} else {
					adds[w] = adds[w%o.conc]
				}
			}
		}
	}

	var prof chan *profile
	if profiled {
		prof = make(chan *profile, 1)
		go func() { prof <- cpuProfile(srv, sub.bin, dir, o.profile) }()
	}
	res.load1 = loadAvg()
	before, cpuBefore := srv.Sample(), selfCPU()
	start := time.Now()
	parts := make([]latencies, workers)
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := tally{lat: make(latencies, 0, len(bodies)/workers+1), status: map[int]int{}}
			if o.client == "raw" {
				t.raw(ctx, srv.Addr, reqs, depth, &next)
			} else {
				for ctx.Err() == nil {
					i := int(next.Add(1) - 1)
					if i >= len(bodies) {
						break
					}
					at := time.Now()
					code, b, err := c.doOn(adds[w], "POST", "/v1/dt/targets", keys[owners[i]], "application/json", bodies[i])
					t.note(code, b, err, time.Since(at))
				}
			}
			parts[w] = t.lat
			mu.Lock()
			for k, v := range t.status {
				res.status[k] += v
			}
			res.created += t.created
			res.resolved += t.resolved
			if res.errSample == "" {
				res.errSample = t.sample
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	after := srv.Sample()
	res.cpu, res.clientCPU, res.rssAfter = after.CPU-before.CPU, selfCPU()-cpuBefore, after.RSSKB
	res.lat = merge(parts)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if res.listed, err = countTargets(ctx, c, keys); err != nil {
		return nil, err
	}
	if prof != nil {
		res.profile = <-prof
	}
	if err := srv.Stop(); err != nil {
		return res, fmt.Errorf("server did not exit cleanly: %v", err)
	}
	if res.created != res.n || res.listed != res.n {
		return res, fmt.Errorf("%d adds, %d answered 201, %d listed afterwards; first other answer: %s", res.n, res.created, res.listed, res.errSample)
	}
	return res, nil
}

// tally is one worker's count of the answers.
type tally struct {
	lat               latencies
	status            map[int]int
	created, resolved int
	sample            string // the first answer other than 201, or error
}

func (t *tally) note(code int, body []byte, err error, lat time.Duration) {
	t.lat = append(t.lat, lat)
	t.status[code]++
	switch {
	case err != nil || code != 201:
		if t.sample == "" {
			t.sample = fmt.Sprintf("%d %v %.200s", code, err, body)
		}
	default:
		t.created++
		if bytes.Contains(body, []byte(`"social_user_id":"`)) {
			t.resolved++
		}
	}
}

// raw sends reqs on one connection of the raw client, depth at a time: one
// write for the batch, then its answers in order (the server answers a
// connection's requests in order). A broken connection counts the batch's
// unanswered requests as failed (status 0) and dials again.
func (t *tally) raw(ctx context.Context, addr string, reqs [][]byte, depth int, next *atomic.Int64) {
	var rc *rawConn
	defer func() {
		if rc != nil {
			rc.Close()
		}
	}()
	for ctx.Err() == nil {
		from := int(next.Add(int64(depth)) - int64(depth))
		if from >= len(reqs) {
			return
		}
		batch := reqs[from:min(from+depth, len(reqs))]
		var err error
		if rc == nil {
			rc, err = dialRaw(addr)
		}
		at := time.Now()
		if err == nil {
			err = rc.send(batch)
		}
		got := 0
		for ; err == nil && got < len(batch); got++ {
			err = rc.answer(func(code int, body []byte) { t.note(code, body, nil, time.Since(at)) })
		}
		if err != nil {
			for ; got < len(batch); got++ {
				t.note(0, nil, err, time.Since(at))
			}
			if rc != nil {
				rc.Close()
				rc = nil
			}
		}
	}
}

// plan lays out the adds: request i goes to account i mod A, so consecutive
// requests spread over accounts; account a adds the handles from a*T mod H
// on, T = ceil(N/A), as the fan-out bench's setup does.
func plan(o *options) (bodies [][]byte, owners []int) {
	per := (o.targets + o.accounts - 1) / o.accounts
	bodies, owners = make([][]byte, o.targets), make([]int, o.targets)
	for i := range o.targets {
		a, j := i%o.accounts, i/o.accounts
		bodies[i] = []byte(`{"handle":"` + handleName((a*per+j)%o.handles) + `"}`)
		owners[i] = a
	}
	return bodies, owners
}

// loadAvg is the 1-minute load average of the machine.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// latencies are request durations, sorted by merge.
type latencies []time.Duration

func merge(parts []latencies) latencies {
	var all latencies
	for _, p := range parts {
		all = append(all, p...)
	}
	slices.Sort(all)
	return all
}

func (l latencies) pct(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	i := int(q * float64(len(l)))
	return l[min(i, len(l)-1)]
}
