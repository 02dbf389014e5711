//go:build linux

package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// clusterReport is what the -cluster markdown report and plot show.
type clusterReport struct {
	o                  *options
	w                  *workload
	started, finished  time.Time
	loadStart, loadEnd string
	connectTime        time.Duration
	base, sweep        []*clusterRun
	stray              int64
	disconnects        int64
	serverEnds         int64
	clientError        string
	notes              []string
}

// splitPct is quantile q (percent) of the split histogram k (0: sessions on
// the ingesting node, 1: on the others); 0 when empty.
func (c *clusterRun) splitPct(k int, q float64) time.Duration {
	if c.nodes < 2 {
		return 0
	}
	if h := c.split[k]; h != nil && h.TotalCount() > 0 {
		return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond
	}
	return 0
}

func (rep *clusterReport) groups() []string {
	var out []string
	for _, r := range rep.base {
		if !contains(out, r.group) {
			out = append(out, r.group)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (rep *clusterReport) of(group string) []*runResult {
	var out []*runResult
	for _, r := range rep.base {
		if r.group == group {
			out = append(out, r.runResult)
		}
	}
	return out
}

func (rep *clusterReport) write(dir string) error {
	name := rep.fileName()
	return writeReport(dir, rep.markdown(), []string{name + ".md"}, name+"-latency.png", rep.plot)
}

// fileName is the report's name in -out, without its extension.
func (rep *clusterReport) fileName() string {
	return fmt.Sprintf("cluster%d-%s", rep.o.cluster, rep.started.Format("2006-01-02"))
}

func (rep *clusterReport) markdown() string {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) }
	o, w := rep.o, rep.w
	p("# alertd fan-out on a cluster of %d nodes (issue 14), %s", o.cluster, rep.started.Format("2006-01-02 15:04 MST"))
	p("")
	p("```sh")
	p("url=$(bash scripts/testpg.sh | tail -n 1)")
	args := strings.Join(os.Args[1:], " ")
	if o.databaseURL != "" {
		args = strings.ReplaceAll(args, o.databaseURL, `"$url"`)
	}
	p("go run ./bench/cmd/fanoutbench %s", args)
	p("```")
	p("")
	p("All nodes, the client and PostgreSQL on one machine (%d CPUs, GOMAXPROCS of the client %d); load average %s at the start, %s at the end. "+
		"%d handles, %d dt enterprise accounts × %d targets, %d sessions (%d per account) spread over the nodes (session i on node i mod N), "+
		"every post delivered to %d sessions; post seq ingested on node seq mod N (each handle's posts come from every node in turn). "+
		"Each group runs on a fresh PostgreSQL database; the workload is set up through node 0 before the other nodes start. Sessions moved between groups in %v.",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), rep.loadStart, rep.loadEnd, w.handles, w.accounts, w.targets, o.sessions, o.perAccount,
		w.watchers, rep.connectTime.Round(time.Second))
	if o.note != "" {
		p("")
		p("Note: %s", o.note)
	}
	p("")
	p("## Summary (medians of the base runs at %d posts/s, %v each)", o.baseRate, o.baseDuration)
	p("")
	p("| group | nodes | deliveries/s | deliveries per server CPU-s (all nodes) | p50 | p99 | p50 / p99 on the ingesting node | p50 / p99 on the other nodes | messages between nodes per post (observation + event = total; control) |")
	p("|---|---|---|---|---|---|---|---|---|")
	for _, g := range rep.groups() {
		var runs []*clusterRun
		for _, r := range rep.base {
			if r.group == g {
				runs = append(runs, r)
			}
		}
		rr := rep.of(g)
		med := func(f func(*clusterRun) float64) float64 {
			v := make([]*runResult, len(runs))
			idx := map[*runResult]*clusterRun{}
			for i, r := range runs {
				v[i], idx[r.runResult] = r.runResult, r
			}
			return median(v, func(r *runResult) float64 { return f(idx[r]) })
		}
		msd := func(f func(*clusterRun) time.Duration) string {
			return msOr(time.Duration(med(func(c *clusterRun) float64 { return float64(f(c)) })))
		}
		p("| %s | %d | %s | %s | %s | %s | %s / %s | %s / %s | %.2f + %.2f = %.2f; %.3f |", g, runs[0].nodes,
			num(median(rr, (*runResult).deliveriesPerSec)), num(median(rr, (*runResult).perCPUSecond)),
			msd(func(c *clusterRun) time.Duration { return c.pct(50) }), msd(func(c *clusterRun) time.Duration { return c.pct(99) }),
			msd(func(c *clusterRun) time.Duration { return c.splitPct(0, 50) }), msd(func(c *clusterRun) time.Duration { return c.splitPct(0, 99) }),
			msd(func(c *clusterRun) time.Duration { return c.splitPct(1, 50) }), msd(func(c *clusterRun) time.Duration { return c.splitPct(1, 99) }),
			med(func(c *clusterRun) float64 { return c.perPost(0) }), med(func(c *clusterRun) float64 { return c.perPost(1) }),
			med(func(c *clusterRun) float64 { return c.perPost(0) + c.perPost(1) }), med(func(c *clusterRun) float64 { return c.perPost(2) }))
	}
	p("")
	p("A post costs at most one observation message (to its handle's grain, when that lives on another node than the one that ingested it) and one event message per other node with sessions of the handle: at most N per post, whatever the number of sessions. Single-node groups send none. The split latencies are 0 for a single node.")
	p("")
	p("## Every run")
	p("")
	all := append(append([]*clusterRun{}, rep.base...), rep.sweep...)
	var rr []*runResult
	for _, r := range all {
		rr = append(rr, r.runResult)
	}
	runTable(p, rr)
	p("")
	p("| run | on the ingesting node p50 / p99 / p99.9 | on the other nodes p50 / p99 / p99.9 | observation / event / control messages per post | CPU per node |")
	p("|---|---|---|---|---|")
	for _, r := range all {
		var cpu []string
		for _, c := range r.nodeCPU {
			cpu = append(cpu, fmt.Sprintf("%.2f s", c.Seconds()))
		}
		p("| %s | %s / %s / %s | %s / %s / %s | %.2f / %.2f / %.3f | %s |", r.label,
			msOr(r.splitPct(0, 50)), msOr(r.splitPct(0, 99)), msOr(r.splitPct(0, 99.9)),
			msOr(r.splitPct(1, 50)), msOr(r.splitPct(1, 99)), msOr(r.splitPct(1, 99.9)),
			r.perPost(0), r.perPost(1), r.perPost(2), strings.Join(cpu, ", "))
	}
	p("")
	p("Client: %d stray deliveries, %d DISCONNECT frames, %d sockets ended by the server%s.", rep.stray, rep.disconnects, rep.serverEnds,
		func() string {
			if rep.clientError != "" {
				return "; first client error: " + rep.clientError
			}
			return ""
		}())
	for _, n := range rep.notes {
		p("")
		p("Note: %s", n)
	}
	p("")
	p("![latency](%s-latency.png)", rep.fileName())
	return b.String()
}

// msOr is ms(d), or "–" for 0 (no such sessions: a single node).
func msOr(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return ms(d)
}

// plot: p50 and p99 of every run, on the ingesting node and on the others
// (for a single node: all sessions), against the run.
func (rep *clusterReport) plot() ([]byte, error) {
	const W, H = 1100, 480
	c := canvas{image.NewRGBA(image.Rect(0, 0, W, H))}
	for i := range c.img.Pix {
		c.img.Pix[i] = 255
	}
	runs := append(append([]*clusterRun{}, rep.base...), rep.sweep...)
	c.text(20, 20, fmt.Sprintf("alertd fan-out on %d nodes, %d sessions, %d deliveries per post, %s (load %s)",
		rep.o.cluster, rep.o.sessions, rep.w.watchers, rep.started.Format("2006-01-02"), rep.loadStart), colAxis)
	type line struct {
		name string
		f    func(*clusterRun) time.Duration
	}
	lines := []line{
		{"p50, ingesting node", func(r *clusterRun) time.Duration { return r.splitPct(0, 50) }},
		{"p99, ingesting node", func(r *clusterRun) time.Duration { return r.splitPct(0, 99) }},
		{"p50, other nodes", func(r *clusterRun) time.Duration { return r.splitPct(1, 50) }},
		{"p99, other nodes", func(r *clusterRun) time.Duration { return r.splitPct(1, 99) }},
		{"p50, single node", func(r *clusterRun) time.Duration {
			if r.nodes == 1 {
				return r.pct(50)
			}
			return 0
		}},
		{"p99, single node", func(r *clusterRun) time.Duration {
			if r.nodes == 1 {
				return r.pct(99)
			}
			return 0
		}},
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		for _, l := range lines {
			if v := float64(l.f(r)) / 1e6; v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 100
	}
	pn := &panel{c: c, x0: 80, y0: 60, x1: 1070, y1: 420,
		lymin: math.Floor(math.Log10(math.Max(lo, 0.05))), lym: math.Ceil(math.Log10(math.Max(hi, 10)))}
	pn.xmin, pn.xmax = 0.5, float64(len(runs))+0.5
	var ticks []float64
	for i := range runs {
		ticks = append(ticks, float64(i+1))
	}
	pn.frame("ingest-to-client latency per run (runs in the order of the report's table)", "run", ticks,
		func(x float64) string { return fmt.Sprintf("%d", int(x)) })
	var names []string
	var cols []color.RGBA
	for i, l := range lines {
		var xs, ys []float64
		for j, r := range runs {
			if v := float64(l.f(r)) / 1e6; v > 0 {
				xs, ys = append(xs, float64(j+1)), append(ys, v)
			}
		}
		if len(xs) == 0 {
			continue
		}
		pn.polyline(xs, ys, series[i%len(series)], true)
		names, cols = append(names, l.name), append(cols, series[i%len(series)])
	}
	pn.legend(names, cols)
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
