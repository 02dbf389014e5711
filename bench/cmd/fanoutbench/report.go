//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

// Issue 3's goals, shown beside the measured figures.
const (
	goalPerCPU       = 150_000
	goalBaseP99      = 10 * time.Millisecond
	goalDeliveries   = 100_000
	goalIdleKiB      = 8.0
	referencePerCPU  = 75_000 // best open-source server measured in issue 3
	referenceIdleKiB = 39.0
)

type idleResult struct {
	sessions              int
	before, after         procSample
	heapBefore, heapAfter heapStats
	clientOpen            int
}

func (r *idleResult) perSessionKiB() float64 {
	return float64(r.after.RSSKB-r.before.RSSKB) / float64(r.sessions)
}

// heldPerSessionKiB is the RSS delta less the change in free, unreleased
// heap pages: what the sessions hold resident whatever the scavenger left
// from setup.
func (r *idleResult) heldPerSessionKiB() float64 {
	before := r.before.RSSKB*1024 - r.heapBefore.freeResident()
	after := r.after.RSSKB*1024 - r.heapAfter.freeResident()
	return float64(after-before) / 1024 / float64(r.sessions)
}

// heapPerSessionKiB is the live heap (after a forced GC) per session.
func (r *idleResult) heapPerSessionKiB() float64 {
	return float64(r.heapAfter.alloc-r.heapBefore.alloc) / 1024 / float64(r.sessions)
}

// report collects everything the markdown report shows.
type report struct {
	o                   *options
	w                   *workload
	started, finished   time.Time
	loadStart, loadEnd  string
	nofile              uint64
	keysTime            time.Duration
	targetsTime         time.Duration
	connectTime         time.Duration
	sessionsOpen        int
	startSample         procSample
	baseline, endSample procSample
	baseHeap            heapStats
	idle                *idleResult
	base, sweep         []*runResult
	napZero             *runResult
	stray               int64
	acks, disconnects   int64
	serverEnds          int64
	clientError         string
	levels              map[string]int
	exitErr             error
	cleanExit           bool
	stopTook            time.Duration // SIGTERM to exit
	openAtStop          int           // client sockets open at SIGTERM
	notes               []string
	scrape              []*scrapePair // -scrape comparison
	floor               *floorResult  // -floor comparison
	sideHooks           int64         // its webhook deliveries received
	sideChurn           int64         // its sockets opened and closed
}

func (r *runResult) meets(target time.Duration) bool {
	return r.pct(99) < target && r.missing() == 0 && r.sendErrors == 0
}

func (r *runResult) line() string {
	return fmt.Sprintf("%s: %d posts/s × %d = %s deliveries/s offered; delivered %d/%d (missing %d), p50 %v p99 %v p99.9 %v max %v; server CPU %.2fs = %s deliveries/CPU-s; send lag p99 %v; load %s",
		r.label, r.rate, r.watchers, num(float64(r.rate*r.watchers)), r.delivered, r.expected, r.missing(),
		ms(r.pct(50)), ms(r.pct(99)), ms(r.pct(99.9)), ms(time.Duration(r.hist.Max())*time.Microsecond),
		r.serverCPU.Seconds(), num(r.perCPUSecond()), ms(r.lagP99), r.loadAvg)
}

// median returns the run whose value of f is the median (lower middle).
func median(runs []*runResult, f func(*runResult) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// best is the highest offered deliveries/s of a run meeting the p99 target.
func (rep *report) best() (*runResult, bool) {
	var b *runResult
	for _, r := range append(slices.Clone(rep.base), rep.sweep...) {
		if r.meets(rep.o.p99Target) && (b == nil || r.rate > b.rate) {
			b = r
		}
	}
	return b, b != nil
}

func (rep *report) warnings() []string {
	var w []string
	all := append(slices.Clone(rep.base), rep.sweep...)
	if rep.floor != nil {
		all = append(all, rep.floor.runs...)
		if rep.floor.shortWrites != 0 {
			w = append(w, fmt.Sprintf("floor server: %d short writes (sockets dropped)", rep.floor.shortWrites))
		}
	}
	if rep.napZero != nil {
		all = append(all, rep.napZero)
	}
	for _, r := range all {
		if r.sendErrors > 0 {
			w = append(w, fmt.Sprintf("%s: %d ingest requests failed: %s", r.label, r.sendErrors, r.firstError))
		}
		if r.extra > 0 {
			w = append(w, fmt.Sprintf("%s: %d duplicate deliveries", r.label, r.extra))
		}
	}
	if rep.disconnects > 0 || rep.clientError != "" {
		w = append(w, fmt.Sprintf("client: %d DISCONNECT frames; first error: %s", rep.disconnects, rep.clientError))
	}
	if rep.stray > 0 {
		w = append(w, fmt.Sprintf("%d deliveries of unknown sequence numbers", rep.stray))
	}
	if rep.levels["ERROR"] > 0 {
		w = append(w, fmt.Sprintf("server log has %d ERROR lines", rep.levels["ERROR"]))
	}
	if !rep.cleanExit {
		w = append(w, fmt.Sprintf("server did not exit cleanly on SIGTERM: %v", rep.exitErr))
	}
	return w
}

func (rep *report) write(dir string) error {
	date := rep.started.Format("2006-01-02")
	return writeReport(dir, rep.markdown(), []string{"fanout-" + date + ".md", "fanout-latest.md"},
		"fanout-latency.png", rep.plot)
}

// writeReport prints md and, unless dir is empty, writes it to dir under
// each of names, and plot's image as pngName beside it.
func writeReport(dir, md string, names []string, pngName string, plot func() ([]byte, error)) error {
	fmt.Print(md)
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(md), 0o644); err != nil {
			return err
		}
	}
	img, err := plot()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, pngName), img, 0o644)
}

func (rep *report) markdown() string {
	var b strings.Builder
	o, w := rep.o, rep.w
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p("# Fan-out benchmark (issue 3), %s", rep.started.Format("2006-01-02 15:04 MST"))
	p("")
	p("Generated by `go run ./bench/cmd/fanoutbench` (`make bench`). Ingest-to-client latency: from the moment the bench sends a post's ingest request to the moment a client read returns the EVENT frame, over real loopback sockets. See bench/README.md.")
	p("")
	p("## Machine")
	p("")
	p("| CPUs | Go | load average at start | load average at end | RLIMIT_NOFILE |")
	p("|---|---|---|---|---|")
	p("| %d | %s | %s | %s | %d |", runtime.NumCPU(), runtime.Version(), rep.loadStart, rep.loadEnd, rep.nofile)
	p("")
	p("The load generator (client epoll loops, ingest sender) runs on the same cores as the server; its CPU is shown as *client CPU*. Over loopback the server's CPU time also holds the kernel's receive path of the client sockets (softirq work done inside the server's send calls, charged to it), which a remote client would not cost it.")
	p("")
	p("## Settings")
	p("")
	p("| handles | accounts (dt enterprise) | targets per account | sessions | sessions per account | deliveries per post | base runs | sweep | client loops | client nap | source addresses |")
	p("|---|---|---|---|---|---|---|---|---|---|---|")
	p("| %d | %d | %d | %d | %d | %d | %d × %v at %d posts/s (after %v warm-up) | %s, %v each | %d | %v | %d |",
		w.handles, w.accounts, w.targets, o.sessions, o.perAccount, w.watchers, o.baseRuns, o.baseDuration, o.baseRate, o.warmup,
		rateList(o.rates), o.sweepDur, o.loops, o.clientNap, o.localAddrs)
	if o.note != "" {
		p("")
		p("Note: %s", o.note)
	}
	p("")
	p("Setup: %d keys in %v; %d targets through `POST /v1/dt/targets` in %v (%s/s, %d in parallel); %d sessions logged in (HELLO → LOGIN → READY) in %v (%s/s).",
		w.accounts, rep.keysTime.Round(time.Millisecond), w.accounts*w.targets, rep.targetsTime.Round(time.Millisecond),
		num(float64(w.accounts*w.targets)/rep.targetsTime.Seconds()), o.setupConc,
		rep.sessionsOpen, rep.connectTime.Round(time.Millisecond), num(float64(rep.sessionsOpen)/rep.connectTime.Seconds()))
	p("")
	rep.summary(p)
	p("## Base runs (%d posts/s)", o.baseRate)
	p("")
	runTable(p, rep.base)
	if len(rep.base) > 1 {
		p("")
		p("Medians: p50 %v, p99 %v, p99.9 %v, %s deliveries/s, %s deliveries per server CPU-second.",
			ms(time.Duration(median(rep.base, func(r *runResult) float64 { return float64(r.pct(50)) }))),
			ms(time.Duration(median(rep.base, func(r *runResult) float64 { return float64(r.pct(99)) }))),
			ms(time.Duration(median(rep.base, func(r *runResult) float64 { return float64(r.pct(99.9)) }))),
			num(median(rep.base, (*runResult).deliveriesPerSec)), num(median(rep.base, (*runResult).perCPUSecond)))
	}
	p("")
	rep.floorReport(p)
	rep.scrapeReport(p)
	if all := append(slices.Clone(rep.base), rep.sweep...); len(all) > 0 {
		p("### Per post: first delivery and fan-out spread")
		p("")
		spreadTable(p, all)
		p("")
	}
	if r := rep.napZero; r != nil {
		p("## Client that wakes for every frame")
		p("")
		p("The runs above use client loops that pause %v after each batch of events (`-client-nap`), so frames that arrive meanwhile are read in one batch: on loopback the server's CPU time includes the kernel's work of waking the reading thread, which remote clients would not cost it, and the client's own CPU competes with the server for the same cores. The pause adds up to %v to each measured latency. The same base run with a client that wakes for every frame:", o.clientNap, o.clientNap)
		p("")
		runTable(p, []*runResult{r})
		p("")
	}
	if len(rep.sweep) > 0 {
		p("## Rate sweep")
		p("")
		runTable(p, rep.sweep)
		p("")
		if len(rep.sweep) < len(o.rates) {
			p("The sweep stopped after the first rate that missed p99 < %v (or lost deliveries); `-keep-sweeping` runs them all.", ms(o.p99Target))
			p("")
		}
	}
	if rep.idle != nil {
		i := rep.idle
		p("## Idle memory")
		p("")
		p("| idle sessions | RSS before any socket | RSS with the sessions, after %v idle | delta | **RSS per session** | free unreleased heap before → after | RSS less free heap, per session | live heap per session | peak RSS so far |", o.idleWait)
		p("|---|---|---|---|---|---|---|---|---|")
		p("| %d | %s | %s | %s | **%.1f KiB** | %s → %s | %.1f KiB | %.1f KiB | %s |", i.sessions, kib(i.before.RSSKB), kib(i.after.RSSKB),
			kib(i.after.RSSKB-i.before.RSSKB), i.perSessionKiB(), kib(i.heapBefore.freeResident()/1024), kib(i.heapAfter.freeResident()/1024),
			i.heldPerSessionKiB(), i.heapPerSessionKiB(), kib(i.after.HWMKB))
		p("")
		p("Each session is logged in and hears its account's %d handles (the sockets of an account share one subscription, hub entries included). The extra sessions beyond %d are second sockets of existing accounts and were closed before the fan-out runs. Both samples are taken after two forced GCs in the server (pprof `heap?gc=1`) and a second of quiet; *live heap* is HeapAlloc after the GC. The RSS delta alone depends on what setup left behind: freed heap the runtime has not yet returned to the kernel (HeapIdle − HeapReleased) stays resident, and sessions allocated into it do not grow RSS (a delta well under the live heap), while a scavenge between the samples shrinks RSS under them; *RSS less free heap* takes that out, leaving what the sessions hold resident (their live heap, its fragmentation and GC headroom, runtime metadata). Kernel socket buffers are not in RSS.", w.targets, o.sessions)
		p("")
	}
	p("## Client and server")
	p("")
	p("- Heartbeat ACKs received: %d; DISCONNECT frames: %d; sockets the server closed: %d.", rep.acks, rep.disconnects, rep.serverEnds)
	p("- Server RSS: %s after start, %s after setup, %s at the end, peak %s.", kib(rep.startSample.RSSKB), kib(rep.baseline.RSSKB), kib(rep.endSample.RSSKB), kib(rep.endSample.HWMKB))
	p("- Server log lines by level: %s. Clean exit on SIGTERM: %v, %v after the signal with %d sockets open.",
		levels(rep.levels), rep.cleanExit, rep.stopTook.Round(time.Millisecond), rep.openAtStop)
	for _, n := range rep.notes {
		p("- %s", n)
	}
	if ws := rep.warnings(); len(ws) > 0 {
		p("")
		p("## Warnings")
		p("")
		for _, x := range ws {
			p("- %s", x)
		}
	}
	p("")
	p("![latency](fanout-latency.png)")
	return b.String()
}

func (rep *report) summary(p func(string, ...any)) {
	o := rep.o
	p("## Issue 3 targets")
	p("")
	p("| figure | goal | measured | met | best open-source server in issue 3 |")
	p("|---|---|---|---|---|")
	if len(rep.base) > 0 {
		per := median(rep.base, (*runResult).perCPUSecond)
		p99 := time.Duration(median(rep.base, func(r *runResult) float64 { return float64(r.pct(99)) }))
		off := num(float64(o.baseRate * rep.w.watchers))
		p("| deliveries per server CPU-second at %s/s (median) | ≥ %s | %s | %s | ~%s |", off, num(goalPerCPU), num(per), yes(per >= goalPerCPU), num(referencePerCPU))
		for _, r := range rep.sweep {
			p("| deliveries per server CPU-second at %s/s | | %s | | |", num(float64(r.rate*r.watchers)), num(r.perCPUSecond()))
		}
		p("| p99 at %s deliveries/s (median) | < %v | %v | %s | 13–45 ms |", off, ms(goalBaseP99), ms(p99), yes(p99 < goalBaseP99))
	}
	if b, ok := rep.best(); ok {
		d := b.rate * b.watchers
		p("| highest rate with p99 < %v | ≥ %s deliveries/s | %s deliveries/s (%d posts/s, p99 %v) | %s | falls behind near 100,000/s |",
			ms(o.p99Target), num(goalDeliveries), num(float64(d)), b.rate, ms(b.pct(99)), yes(d >= goalDeliveries))
	} else {
		p("| highest rate with p99 < %v | ≥ %s deliveries/s | none | no | falls behind near 100,000/s |", ms(o.p99Target), num(goalDeliveries))
	}
	if rep.idle != nil {
		k := rep.idle.perSessionKiB()
		p("| RSS per idle session | < %.0f KiB | %.1f KiB | %s | %.0f KiB |", goalIdleKiB, k, yes(k < goalIdleKiB), referenceIdleKiB)
	}
	p("")
}

// spreadTable shows where a post's latency goes: the first of its
// deliveries (ingest, actor, encoding, one write and read) and the time
// until its last (the fan-out itself).
func spreadTable(p func(string, ...any), runs []*runResult) {
	p("| run | first delivery p50 | first delivery p99 | first → last delivery p50 | first → last p99 |")
	p("|---|---|---|---|---|")
	for _, r := range runs {
		p("| %s | %v | %v | %v | %v |", r.label, ms(quantile(r.firstLat, 0.5)), ms(quantile(r.firstLat, 0.99)),
			ms(quantile(r.spread, 0.5)), ms(quantile(r.spread, 0.99)))
	}
}

func runTable(p func(string, ...any), runs []*runResult) {
	p("| run | posts/s | offered deliveries/s | delivered | missing | deliveries/s | p50 | p99 | p99.9 | max | server CPU | deliveries per server CPU-s | client CPU | send lag p99 / max | load avg |")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range runs {
		p("| %s | %d | %s | %d | %d | %s | %v | %v | %v | %v | %.2f s | %s | %.2f s | %v / %v | %s |",
			r.label, r.rate, num(float64(r.rate*r.watchers)), r.delivered, r.missing(), num(r.deliveriesPerSec()),
			ms(r.pct(50)), ms(r.pct(99)), ms(r.pct(99.9)), ms(time.Duration(r.hist.Max())*time.Microsecond),
			r.serverCPU.Seconds(), num(r.perCPUSecond()), r.clientCPU.Seconds(), ms(r.lagP99), ms(r.lagMax), r.loadAvg)
	}
}

func ms(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// num formats with thousands separators.
func num(f float64) string {
	s := fmt.Sprintf("%.0f", f)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
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

func kib(k int64) string {
	if k >= 10*1024 || k <= -10*1024 {
		return fmt.Sprintf("%.1f MiB", float64(k)/1024)
	}
	return fmt.Sprintf("%d KiB", k)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func rateList(r []int) string {
	if len(r) == 0 {
		return "none"
	}
	s := make([]string, len(r))
	for i, x := range r {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ") + " posts/s"
}

func levels(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
