// Command targetsbench measures how fast alertd adds B2B targets through
// POST /v1/dt/targets: the real binary on a loopback port, N adds spread
// over A accounts (every handle already known to the directory, so each add
// resolves), over C keep-alive connections with one request in flight on
// each, or several (-pipeline: HTTP/1.1 pipelining), closed loop, like the
// fan-out bench's setup. The load client is the bench's own (-client raw:
// pre-built requests, a batch per write, every status checked) so that it
// takes little of the cores the server runs on; -client fasthttp is the
// general client it replaced. It runs each binary (the tree's, and optionally an older one built
// from a git ref) on each store (embedded, and PostgreSQL when a URL is
// given), alternating, and writes a markdown report: adds/s, latency
// percentiles, server CPU per 1,000 adds, and CPU profiles of the tree's
// binary. Numbers are for reading, never asserted.
//
//	go run ./bench/cmd/targetsbench -out bench/results -database-url postgres://...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

type options struct {
	out         string
	bin         string
	oldBin      string
	oldRef      string
	databaseURL string
	targets     int
	conc        int
	pipelines   []int
	accounts    int
	handles     int
	rounds      int
	profile     time.Duration
	keep        bool
	note        string
	client      string
}

func parseFlags() *options {
	o := &options{}
	flag.StringVar(&o.out, "out", "bench/results", "directory for targets-<date>.md and targets-latest.md; empty: stdout only")
	flag.StringVar(&o.bin, "bin", "", "alertd binary under test (empty: build ./cmd/alertd of this tree)")
	flag.StringVar(&o.oldBin, "old-bin", "", "older alertd binary to compare with (overrides -old-ref)")
	flag.StringVar(&o.oldRef, "old-ref", "1315c4c", "git ref to build the binary to compare with, in a temporary worktree under /tmp (empty: no comparison)")
	flag.StringVar(&o.databaseURL, "database-url", "", "postgres:// URL of a server where the bench may create and drop databases (empty: embedded store only)")
	flag.IntVar(&o.targets, "targets", 200_000, "target adds per run (N)")
	flag.IntVar(&o.conc, "conc", 16, "keep-alive connections (C); each carries -pipeline requests in flight")
	pipe := flag.String("pipeline", "1", "requests in flight per connection (HTTP/1.1 pipelining), comma-separated to run each depth in turn; 1: one request at a time")
	flag.IntVar(&o.accounts, "accounts", 2000, "dt enterprise accounts the adds are spread over (A; at most 1,000 targets each)")
	flag.IntVar(&o.handles, "handles", 1000, "handles known to the directory (H); account a adds the N/A handles from a*N/A mod H")
	flag.IntVar(&o.rounds, "rounds", 2, "runs of each binary on each store, alternating binaries")
	flag.DurationVar(&o.profile, "profile", 3*time.Second, "CPU profile of the tree's binary during its first run on each store at each -pipeline depth (0: none)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temp dir (binaries, data dirs, server logs, profile)")
	flag.StringVar(&o.client, "client", "raw", "load client: raw (pre-built requests, one write per batch of -pipeline, status line and Content-Length parsed; cheapest) or fasthttp (HostClient, or a PipelineClient per connection)")
	flag.StringVar(&o.note, "note", "", "free text for the report's settings")
	flag.Parse()
	for _, f := range strings.Split(*pipe, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "targetsbench: -pipeline %q: want depths of at least 1, comma-separated\n", *pipe)
			os.Exit(2)
		}
		o.pipelines = append(o.pipelines, n)
	}
	return o
}

func main() {
	o := parseFlags()
	if o.client != "raw" && o.client != "fasthttp" {
		fmt.Fprintf(os.Stderr, "targetsbench: -client %q: want raw or fasthttp\n", o.client)
		os.Exit(2)
	}
	if flag.NArg() > 0 || o.targets < 1 || o.conc < 1 || o.accounts < 1 || o.handles < 1 || o.rounds < 1 {
		fmt.Fprintln(os.Stderr, "targetsbench: -targets, -conc, -accounts, -handles and -rounds must be at least 1; no arguments")
		os.Exit(2)
	}
	if per := (o.targets + o.accounts - 1) / o.accounts; per > 1000 || per > o.handles {
		fmt.Fprintf(os.Stderr, "targetsbench: %d targets per account: at most 1,000 and at most -handles\n", per)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, o)
	stop()
	os.Exit(code)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "targetsbench: "+format+"\n", args...)
}

// subject is one binary under test.
type subject struct {
	name string // "tree" or the old ref
	bin  string
}

func run(ctx context.Context, o *options) int {
	tmp, err := os.MkdirTemp("", "targetsbench-")
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer func() {
		if o.keep {
			logf("kept %s", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()
	rep := &report{started: time.Now(), o: o, commit: gitCommit()}
	var subjects []subject
	bin := o.bin
	if bin == "" {
		logf("building ./cmd/alertd")
		if bin, err = alertdproc.BuildBinary(ctx, tmp); err != nil {
			logf("%v", err)
			return 1
		}
	}
	subjects = append(subjects, subject{name: "this tree (" + rep.commit + ")", bin: bin})
	switch {
	case o.oldBin != "":
		subjects = append(subjects, subject{name: "old binary " + o.oldBin, bin: o.oldBin})
	case o.oldRef != "":
		logf("building %s in a temporary worktree", o.oldRef)
		old, err := buildRef(ctx, o.oldRef, filepath.Join(tmp, "old"))
		if err != nil {
			logf("%v", err)
			return 1
		}
		subjects = append(subjects, subject{name: "old code (" + o.oldRef + ")", bin: old})
	}
	stores := []string{"embedded"}
	if o.databaseURL != "" {
		stores = append(stores, "postgres")
	}
	for _, store := range stores {
		for round := range o.rounds {
			for _, depth := range o.pipelines {
				for _, sub := range subjects {
					if ctx.Err() != nil {
						logf("interrupted; no report written")
						return 130
					}
					profile := o.profile > 0 && sub.bin == bin && round == 0
					dir := filepath.Join(tmp, fmt.Sprintf("%s-%d-%d", store, round, len(rep.runs)))
					r, err := runOnce(ctx, o, sub, store, depth, dir, profile)
					if err != nil {
						logf("%s on %s, pipeline %d: %v", sub.name, store, depth, err)
						rep.warnings = append(rep.warnings, fmt.Sprintf("%s on %s, pipeline %d, round %d: %v", sub.name, store, depth, round+1, err))
						continue
					}
					logf("%s on %s, pipeline %d: %.0f adds/s, p50 %v, p99 %v, %.2f server CPU-s per 1,000", sub.name, store, depth,
						r.rate(), r.lat.pct(0.50), r.lat.pct(0.99), r.cpuPer1000().Seconds())
					if r.profile != nil {
						rep.profiles = append(rep.profiles, r)
					}
					rep.runs = append(rep.runs, r)
				}
			}
		}
	}
	md := rep.markdown()
	fmt.Print(md)
	if o.out != "" {
		if err := writeReport(o.out, rep.started, md); err != nil {
			logf("%v", err)
			return 1
		}
	}
	if len(rep.warnings) > 0 {
		return 1
	}
	return 0
}

// writeReport writes targets-<date>.md and targets-latest.md into dir.
func writeReport(dir string, at time.Time, md string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := "targets-" + at.Format("2006-01-02") + ".md"
	for _, n := range []string{name, "targets-latest.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(md), 0o644); err != nil {
			return err
		}
	}
	logf("wrote %s and targets-latest.md", filepath.Join(dir, name))
	return nil
}

// redactURL hides a password in a database URL.
func redactURL(u string) string {
	at := strings.LastIndexByte(u, '@')
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	cred := u[scheme+3 : at]
	if i := strings.IndexByte(cred, ':'); i >= 0 {
		cred = cred[:i] + ":***"
	}
	return u[:scheme+3] + cred + u[at:]
}
