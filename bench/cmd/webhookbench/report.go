package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

type report struct {
	opts    *options
	started time.Time
	results []*result
}

func percentiles(d []time.Duration) (p50, p90, p99, max time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return at(0.50), at(0.90), at(0.99), d[len(d)-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if _, v, ok := strings.Cut(l, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return "?"
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "?"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += " (+ uncommitted changes)"
	}
	return c
}

func (r *report) write(dir string) error {
	o := r.opts
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("# alertd webhook delivery bench, %s\n\n", r.started.Format("2006-01-02 15:04 UTC"))
	p("Numbers from `bench/cmd/webhookbench`: the real `alertd serve` binary on a loopback port; a local receiver (same machine, same cores) that verifies every `X-Signature`, drops duplicates by `X-Delivery-Id` and answers 204. Latency runs from the moment the ingest request carrying a post was sent to the moment the receiver read the delivery: ingest, the handle actor, the post tap and filter match, the write-ahead insert of the delivery in the store, the endpoint actor and the signed POST. Read ratios within one report.\n\n")
	p("## Machine\n\n| | |\n|---|---|\n| CPUs | %d |\n| CPU model | %s |\n| Go | %s |\n| commit | %s |\n\n", runtime.NumCPU(), cpuModel(), runtime.Version(), gitCommit())
	store := "embedded (temp data dir)"
	if o.databaseURL != "" {
		store = "postgres"
	}
	p("## Settings\n\n| | |\n|---|---|\n| store | %s |\n| tracked handles | %d (posts round robin over them) |\n", store, o.handles)
	p("| throughput scenarios | %d posts each, %d per ingest request, %d concurrent senders, as fast as answered |\n", o.posts, o.batch, o.senders)
	p("| latency scenario | %d posts/s, one per request, for %v |\n| policy | spec defaults: 3 attempts, 1 s / 2 s backoff, 5 s timeout (no failures happen here) |\n", o.rate, o.latencyFor)
	if o.note != "" {
		p("| note | %s |\n", o.note)
	}
	p("| fairness scenario | %d webhooks, %d posts/s one per request for %v, %d rounds: each runs without and with the last webhook at a blackhole (a listener that accepts and never answers), alternating which goes first |\n",
		o.fairHooks, o.fairRate, o.fairFor, o.fairRounds)
	p("| receiver | fasthttp on loopback in the bench process, HMAC verified per delivery; `bench cores` is that process (receiver and ingest senders) |\n")
	p("\n## Results\n\n| scenario | webhooks | posts | deliveries (expected) | elapsed | deliveries/s | p50 | p90 | p99 | max | alertd cores | bench cores | alertd CPU per delivery | bad signatures | duplicates | ingest errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.results {
		if x.mode != modeFairness {
			r.row(p, x, "throughput")
		}
	}
	p("\nThroughput rows saturate the engine (all posts are ingested within a fraction of the run), so their latencies are mostly queueing; the latency row is the unloaded figure.\n")
	if o.fairHooks > 0 {
		p("\n## Fairness: one blackholed webhook among %d\n\nLatencies and deliveries/s of the answering webhooks only; runs interleaved A B, B A, ...\n\n", o.fairHooks)
		p("| scenario | webhooks | posts | deliveries (expected) | elapsed | deliveries/s | p50 | p90 | p99 | max | alertd cores | bench cores | alertd CPU per delivery | bad signatures | duplicates | ingest errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		var base, hole [][2]time.Duration
		for _, x := range r.results {
			if x.mode != modeFairness {
				continue
			}
			name := fmt.Sprintf("round %d, all answer", x.round)
			if x.blackholed {
				name = fmt.Sprintf("round %d, one blackholed", x.round)
				hole = append(hole, [2]time.Duration{x.p50, x.p99})
			} else {
				base = append(base, [2]time.Duration{x.p50, x.p99})
			}
			r.row(p, x, name)
		}
		b50, b99 := medians(base)
		h50, h99 := medians(hole)
		p("\nMedians over the rounds: all answer p50 %s, p99 %s; one blackholed p50 %s, p99 %s (p99 %+.1f%%).\n",
			ms(b50), ms(b99), ms(h50), ms(h99), 100*(float64(h99)/float64(max(b99, 1))-1))
	}
	out := b.String()
	fmt.Print(out)
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(dir, "webhooks-"+r.started.Format("2006-01-02")+".md")
	if err := os.WriteFile(name, []byte(out), 0o644); err != nil {
		return err
	}
	logf("wrote %s", name)
	return os.WriteFile(filepath.Join(dir, "webhooks-latest.md"), []byte(out), 0o644)
}

// row writes one result line.
func (r *report) row(p func(string, ...any), x *result, name string) {
	if x.mode == modeLatency {
		name = fmt.Sprintf("latency @ %d posts/s", x.rate)
	}
	p("| %s | %d | %d | %d (%d) | %v | %.0f | %s | %s | %s | %s | %.2f | %.2f | %.0f µs | %d | %d | %d |\n", name, x.webhooks, x.posts,
		x.deliveries, x.expected, x.elapsed.Round(time.Millisecond), x.perSecond, ms(x.p50), ms(x.p90), ms(x.p99), ms(x.max),
		x.serverCores, x.benchCores, float64(x.serverPerDelivery.Nanoseconds())/1000, x.badSig, x.dups, x.ingestErr)
}

// medians are the medians of the p50s and of the p99s of some runs.
func medians(runs [][2]time.Duration) (p50, p99 time.Duration) {
	if len(runs) == 0 {
		return
	}
	var a, b []time.Duration
	for _, x := range runs {
		a, b = append(a, x[0]), append(b, x[1])
	}
	slices.Sort(a)
	slices.Sort(b)
	return a[len(a)/2], b[len(b)/2]
}
