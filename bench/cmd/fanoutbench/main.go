//go:build linux

// Command fanoutbench measures alertd's realtime fan-out (issue 3): it builds
// and starts the real binary, sets up H handles watched by W sessions each
// (A dt enterprise accounts with T targets, added through POST
// /v1/dt/targets), logs in every session over a real socket with a small
// epoll-driven WebSocket client, then ingests posts at fixed rates (open
// loop) and measures ingest-to-client latency, deliveries per second, missing
// deliveries and server CPU per delivery; and the server's RSS per idle
// logged-in session. It writes a markdown report and a PNG plot. Numbers are
// for reading, never asserted.
//
//	go run ./bench/cmd/fanoutbench -out bench/results
//
// See bench/README.md for the scenario and how to read the report.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

type options struct {
	out       string
	bin       string
	keepTmp   bool
	note      string
	readyWait time.Duration

	handles      int
	sessions     int
	watchers     int
	perAccount   int
	idleSessions int

	baseRate     int
	baseRuns     int
	baseDuration time.Duration
	warmup       time.Duration
	rates        []int
	sweepDur     time.Duration
	p99Target    time.Duration
	keepSweeping bool
	drain        time.Duration
	idleWait     time.Duration

	setupConc  int
	dialConc   int
	loops      int
	clientNap  time.Duration
	napCompare bool
	localAddrs int
	senders    int
	profile    string
	profileSec int

	scrape      time.Duration
	scrapePairs int

	floor    bool
	floorBin string
	floorB   string
	args     string // extra `alertd serve` arguments (-args)
	argsB    string // ... of the -floor-b binary (-floor-b-args)
	floorPad int
	perf     bool

	cluster        int    // -cluster: nodes of one cluster (0: the single-node bench)
	clusterCompare bool   // -cluster-compare: interleave with one node without --cluster-name
	databaseURL    string // -database-url: the PostgreSQL server of -cluster (a fresh database per group)
}

func parseFlags() (*options, error) {
	o := &options{}
	var rates string
	flag.StringVar(&o.out, "out", "bench/results", "directory for fanout-<date>.md, fanout-latest.md and fanout-latency.png; empty: stdout only")
	flag.StringVar(&o.bin, "bin", "", "use this alertd binary instead of building ./cmd/alertd")
	flag.BoolVar(&o.keepTmp, "keep", false, "keep the temp dir (binary, data dir, server.log)")
	flag.StringVar(&o.note, "note", "", "free text for the report's settings")
	flag.DurationVar(&o.readyWait, "ready-timeout", 60*time.Second, "how long to wait for /health 200")

	flag.IntVar(&o.handles, "handles", 1000, "H: handles known to the directory; posts go round-robin over them")
	flag.IntVar(&o.sessions, "sessions", 10000, "logged-in sessions of the fan-out runs")
	flag.IntVar(&o.watchers, "watchers", 1000, "W: sessions that watch each handle (each post is delivered W times)")
	flag.IntVar(&o.perAccount, "per-account", 2, "sessions per account (1 to 5, the B2B socket limit); accounts = sessions/per-account")
	flag.IntVar(&o.idleSessions, "idle-sessions", 15000, "logged-in sessions of the idle-memory phase (the extra ones are second sockets of existing accounts); 0 skips it")

	flag.IntVar(&o.baseRate, "rate", 50, "posts per second of the repeated base runs")
	flag.IntVar(&o.baseRuns, "runs", 3, "base runs (medians are quoted)")
	flag.DurationVar(&o.baseDuration, "duration", 15*time.Second, "length of each base run's posting schedule")
	flag.DurationVar(&o.warmup, "warmup", 3*time.Second, "untimed run at the base rate first")
	flag.StringVar(&rates, "rates", "100,150,200", "sweep rates (posts/s) after the base runs, ascending; empty: none")
	flag.DurationVar(&o.sweepDur, "sweep-duration", 10*time.Second, "length of each sweep run")
	flag.DurationVar(&o.p99Target, "p99-target", 50*time.Millisecond, "the sweep looks for the highest rate with p99 below this")
	flag.BoolVar(&o.keepSweeping, "keep-sweeping", false, "run every sweep rate even after one misses -p99-target")
	flag.DurationVar(&o.drain, "drain", 5*time.Second, "after a run's last post, wait at most this long for its deliveries")
	flag.DurationVar(&o.idleWait, "idle-wait", 5*time.Second, "idle time before the idle-memory RSS sample")

	flag.IntVar(&o.setupConc, "setup-conc", 16, "parallel HTTP requests while issuing keys and adding targets")
	flag.IntVar(&o.dialConc, "dial-conc", 32, "parallel dials and logins")
	flag.IntVar(&o.loops, "loops", 2, "client epoll loops (one goroutine each)")
	flag.DurationVar(&o.clientNap, "client-nap", time.Millisecond, "client loops pause this long after each batch of events, reading what came meanwhile in one batch (0: every frame may wake a loop)")
	flag.BoolVar(&o.napCompare, "nap-compare", true, "with -client-nap > 0, end with one more base run with -client-nap 0")
	flag.IntVar(&o.localAddrs, "local-addrs", 8, "spread client sockets over 127.0.0.2 ... 127.0.0.(1+N)")
	flag.IntVar(&o.senders, "senders", 8, "ingest workers of the post schedule")
	flag.StringVar(&o.profile, "profile", "", "write a CPU profile of the server (second base run) to this file; empty: none")
	flag.IntVar(&o.profileSec, "profile-seconds", 10, "length of the CPU profile")
	flag.DurationVar(&o.scrape, "scrape", 0, "after the base runs, compare pairs of base runs with /metrics scraped this often and not scraped (order alternating); 0: none")
	flag.IntVar(&o.scrapePairs, "scrape-pairs", 2, "pairs of runs of the -scrape comparison")
	flag.BoolVar(&o.floor, "floor", false, "before the base runs, compare with bench/cmd/floorserver (one write(2) per delivery): runs floor, alertd, alertd, floor at -rate for -duration (issue 16)")
	flag.StringVar(&o.floorBin, "floor-bin", "", "use this floorserver binary instead of building ./bench/cmd/floorserver")
	flag.StringVar(&o.floorB, "floor-b", "", "with -floor, a second alertd binary set up alike and run in the same comparison: floor, alertd, alertd-b, alertd-b, alertd, floor (a before/after pair under the same load)")
	flag.StringVar(&o.args, "args", "", "extra `alertd serve` arguments, space-separated (e.g. \"--ws-send io_uring\")")
	flag.StringVar(&o.argsB, "floor-b-args", "", "extra `alertd serve` arguments of the -floor-b binary, space-separated; -floor-b may name the same binary as -bin with other arguments")
	flag.IntVar(&o.floorPad, "floor-event-bytes", 930, "the floor pads its EVENT payloads to this many bytes: alertd's event of a bench post (the report shows both sizes as received)")
	flag.BoolVar(&o.perf, "perf", false, "with -profile and -floor, also `perf record -g` each server over its second comparison run (<profile>.perf-<server>)")
	flag.IntVar(&o.cluster, "cluster", 0, "run N alertd nodes of one cluster on PostgreSQL (-database-url) instead of one embedded node: sessions spread over the nodes, posts ingested on every node in turn; reports latency on the ingesting node and on the others and cross-node messages per post (bench/results/cluster3-<date>.md)")
	flag.BoolVar(&o.clusterCompare, "cluster-compare", false, "with -cluster, also one node without --cluster-name on the same PostgreSQL, its base runs interleaved with the cluster's (plain, cluster, cluster, plain, ...)")
	flag.StringVar(&o.databaseURL, "database-url", "", "with -cluster: a PostgreSQL server URL (e.g. $(bash scripts/testpg.sh | tail -n 1)); each group runs on a fresh database there, dropped at the end")
	flag.Parse()
	if flag.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", flag.Arg(0))
	}
	for _, f := range strings.Split(rates, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		r, err := strconv.Atoi(f)
		if err != nil || r < 1 {
			return nil, fmt.Errorf("-rates: %q is not a positive number", f)
		}
		o.rates = append(o.rates, r)
	}
	if o.baseRate < 1 || o.baseRuns < 1 || o.loops < 1 || o.localAddrs < 1 || o.localAddrs > 250 || o.senders < 1 {
		return nil, fmt.Errorf("-rate, -runs, -loops, -senders must be at least 1; -local-addrs 1 to 250")
	}
	return o, nil
}

func main() {
	o, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fanoutbench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	var code int
	if o.cluster > 0 {
		code = runCluster(ctx, o)
	} else {
		code = run(ctx, o)
	}
	stop()
	os.Exit(code)
}

// workDir makes the run's temporary folder (removed by cleanup unless
// -keep) and builds alertd there unless -bin names one.
func workDir(ctx context.Context, o *options, prefix string) (tmp, bin string, cleanup func(), err error) {
	if tmp, err = os.MkdirTemp("", prefix); err != nil {
		return "", "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if o.keepTmp {
		logf("keeping %s", tmp)
		cleanup = func() {}
	}
	if bin = o.bin; bin == "" {
		logf("building ./cmd/alertd")
		if bin, err = alertdproc.BuildBinary(ctx, tmp); err != nil {
			cleanup()
			return "", "", nil, err
		}
	}
	return tmp, bin, cleanup, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fanoutbench: "+format+"\n", args...)
}
