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
	p("\n## Results\n\n| scenario | webhooks | posts | deliveries (expected) | elapsed | deliveries/s | p50 | p90 | p99 | max | bad signatures | duplicates | ingest errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.results {
		name := "throughput"
		if x.latencyMode {
			name = fmt.Sprintf("latency @ %d posts/s", x.rate)
		}
		p("| %s | %d | %d | %d (%d) | %v | %.0f | %s | %s | %s | %s | %d | %d | %d |\n", name, x.webhooks, x.posts,
			x.deliveries, x.expected, x.elapsed.Round(time.Millisecond), x.perSecond, ms(x.p50), ms(x.p90), ms(x.p99), ms(x.max),
			x.badSig, x.dups, x.ingestErr)
	}
	p("\nThroughput rows saturate the engine (all posts are ingested within a fraction of the run), so their latencies are mostly queueing; the latency row is the unloaded figure.\n")
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
