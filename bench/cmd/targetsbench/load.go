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
		u, drop, err := freshDatabase(ctx, o.databaseURL)
		if err != nil {
			return nil, err
		}
		defer drop()
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
	// adds[w] is worker w's client: the HostClient (one request at a time
	// per connection), or one pipelined connection per depth workers.
	adds := make([]doer, workers)
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
			lat := make(latencies, 0, len(bodies)/workers+1)
			status := map[int]int{}
			created, resolved := 0, 0
			sample := ""
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(bodies) {
					break
				}
				t := time.Now()
				code, b, err := c.doOn(adds[w], "POST", "/v1/dt/targets", keys[owners[i]], "application/json", bodies[i])
				lat = append(lat, time.Since(t))
				status[code]++
				switch {
				case err != nil || code != 201:
					if sample == "" {
						sample = fmt.Sprintf("%d %v %.200s", code, err, b)
					}
				default:
					created++
					if bytes.Contains(b, []byte(`"social_user_id":"`)) {
						resolved++
					}
				}
			}
			parts[w] = lat
			mu.Lock()
			for k, v := range status {
				res.status[k] += v
			}
			res.created += created
			res.resolved += resolved
			if res.errSample == "" {
				res.errSample = sample
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
