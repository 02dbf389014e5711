// Command restbench is a whole-scenario load generator for alertd's ingest
// API and authenticated REST routes. It builds the real binary, starts it on
// a free loopback port with a throw-away data dir, pushes a pre-generated
// synthetic upstream through POST /ingest/v1/observations, then runs a
// closed-loop GET load on /v1/dt/status (and a short one on the rate-limited
// /v1/plans), sampling the server's CPU time and RSS from /proc around every
// run. It writes a markdown report; numbers are for reading, never asserted.
//
//	go run ./bench/cmd/restbench -out bench/results
//
// See bench/README.md for the scenarios and how to read the report.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
	"github.com/alertd/alertd/upstream/sim"
)

type options struct {
	out         string
	bin         string
	databaseURL string
	keepTmp     bool
	readyWait   time.Duration
	seed        int64
	note        string

	skipIngest     bool
	obs            int
	batch          int
	ingestConc     int
	ingestRuns     int
	users          int
	drainTimeout   time.Duration
	idleCores      float64
	settleInterval time.Duration

	skipREST      bool
	restConns     int
	restDuration  time.Duration
	restRuns      int
	restWarmup    time.Duration
	restPath      string
	plansPath     string
	plansDuration time.Duration
	plansConns    int
	dtPlan        string
	xgPlan        string
}

func parseFlags() *options {
	o := &options{}
	flag.StringVar(&o.out, "out", "bench/results", "directory for the markdown report (rest-ingest-<date>.md and rest-ingest-latest.md); empty: stdout only")
	flag.StringVar(&o.bin, "bin", "", "use this alertd binary instead of building ./cmd/alertd")
	flag.StringVar(&o.databaseURL, "database-url", "", "postgres:// URL passed to alertd serve --database-url (empty: embedded store in a temp data dir)")
	flag.BoolVar(&o.keepTmp, "keep", false, "keep the temp dir (binary, data dir, server.log) and print its path")
	flag.DurationVar(&o.readyWait, "ready-timeout", 60*time.Second, "how long to wait for /health 200 after start")
	flag.Int64Var(&o.seed, "seed", 1, "simulator seed (the stream is reproducible for a seed)")
	flag.StringVar(&o.note, "note", "", "free text added to the report's settings (what changed, which commit)")

	flag.BoolVar(&o.skipIngest, "skip-ingest", false, "skip the ingest phase")
	flag.IntVar(&o.obs, "obs", 200_000, "observations per ingest run")
	flag.IntVar(&o.batch, "batch", 500, "observations per ingest request (NDJSON lines)")
	flag.IntVar(&o.ingestConc, "ingest-conc", 4, "concurrent ingest workers (one keep-alive connection each)")
	flag.IntVar(&o.ingestRuns, "ingest-runs", 3, "ingest runs of -obs observations each (fresh observations every run)")
	flag.IntVar(&o.users, "users", 300, "accounts in the simulated world")
	flag.DurationVar(&o.drainTimeout, "drain-timeout", 60*time.Second, "after an ingest run, wait at most this long for the server to go idle")
	flag.Float64Var(&o.idleCores, "idle-cores", 0.15, "server CPU use (in cores) below which it counts as idle after ingest")
	flag.DurationVar(&o.settleInterval, "settle-interval", 100*time.Millisecond, "sampling interval of the idle check")

	flag.BoolVar(&o.skipREST, "skip-rest", false, "skip the REST phase")
	flag.IntVar(&o.restConns, "conns", 32, "concurrent keep-alive connections of the REST load")
	flag.DurationVar(&o.restDuration, "duration", 10*time.Second, "length of each REST run")
	flag.IntVar(&o.restRuns, "rest-runs", 3, "REST runs on -rest-path")
	flag.DurationVar(&o.restWarmup, "warmup", time.Second, "untimed REST load before the runs (connections, JIT of caches)")
	flag.StringVar(&o.restPath, "rest-path", "/v1/dt/status", "path of the main REST load (sent with the dt key)")
	flag.StringVar(&o.plansPath, "plans-path", "/v1/plans", "rate-limited path loaded with the xg key (empty: skip)")
	flag.DurationVar(&o.plansDuration, "plans-duration", 3*time.Second, "length of the rate-limited run")
	flag.IntVar(&o.plansConns, "plans-conns", 0, "connections of the rate-limited run (0: same as -conns)")
	flag.StringVar(&o.dtPlan, "dt-plan", "enterprise", "plan of the dt key")
	flag.StringVar(&o.xgPlan, "xg-plan", "ultra", "plan of the xg key")
	flag.Parse()
	if o.plansConns <= 0 {
		o.plansConns = o.restConns
	}
	return o
}

func main() {
	o := parseFlags()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "restbench: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if o.batch < 1 || o.obs < 1 || o.ingestConc < 1 || o.restConns < 1 {
		fmt.Fprintln(os.Stderr, "restbench: -batch, -obs, -ingest-conc and -conns must be at least 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, o)
	stop()
	os.Exit(code)
}

// logf prints progress to stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "restbench: "+format+"\n", args...)
}

// report collects everything the markdown report shows.
type report struct {
	started   time.Time
	machine   machineInfo
	o         *options
	store     string
	build     time.Duration
	startup   time.Duration
	ingest    []*ingestRun
	rest      []*restRun
	plans     *restRun
	exitErr   string
	logLevels map[string]int
	rssIdle   int64
	warnings  []string
	finalRSS  int64
	finalHWM  int64
	dataDir   int64
}

func run(ctx context.Context, o *options) (code int) {
	rep := &report{started: time.Now(), o: o, machine: readMachine(), store: "embedded (temp data dir)"}
	if o.databaseURL != "" {
		rep.store = "PostgreSQL (" + redactURL(o.databaseURL) + ")"
	}
	tmp, err := os.MkdirTemp("", "restbench-")
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer func() {
		if o.keepTmp {
			logf("kept %s", tmp)
			return
		}
		os.RemoveAll(tmp)
	}()

	bin := o.bin
	if bin == "" {
		logf("building ./cmd/alertd")
		t := time.Now()
		if bin, err = alertdproc.BuildBinary(ctx, tmp); err != nil {
			logf("%v", err)
			return 1
		}
		rep.build = time.Since(t)
	}
	t := time.Now()
	srv, err := startServer(ctx, bin, tmp, o.databaseURL, o.readyWait)
	if err != nil {
		logf("%v", err)
		return 1
	}
	rep.startup = time.Since(t)
	logf("alertd pid %d on %s (%s), ready in %v; pprof on %s", srv.Cmd.Process.Pid, srv.Addr, rep.store, rep.startup.Round(time.Millisecond), srv.InternalAddr)
	rep.rssIdle = srv.Sample().RSSKB
	defer func() {
		if err := srv.Stop(); err != nil {
			rep.exitErr = err.Error()
			logf("alertd did not exit cleanly: %v", err)
		}
	}()

	failed := false
	if !o.skipIngest && ctx.Err() == nil {
		if !ingestPhase(ctx, srv, o, rep) {
			failed = true
		}
	}
	if !o.skipREST && ctx.Err() == nil {
		if err := restPhase(ctx, srv, o, rep); err != nil {
			logf("REST phase: %v", err)
			rep.warnings = append(rep.warnings, "REST phase failed: "+err.Error())
			failed = true
		}
	}
	end := srv.Sample()
	rep.finalRSS, rep.finalHWM = end.RSSKB, end.HWMKB
	if o.databaseURL == "" {
		rep.dataDir = dirSize(srv.DataDir)
	}
	// Stop now (not in the deferred call) so the report can say how it exited.
	if err := srv.Stop(); err != nil {
		rep.exitErr = err.Error()
		rep.warnings = append(rep.warnings, "alertd did not exit cleanly on SIGTERM: "+err.Error())
		logf("alertd did not exit cleanly: %v\n%s", err, srv.LogTail(2000))
		failed = true
	}
	rep.logLevels = srv.LogLevels()
	if n := rep.logLevels["ERROR"]; n > 0 {
		rep.warnings = append(rep.warnings, fmt.Sprintf("the server logged %d ERROR lines (see -keep and server.log)", n))
	}
	if ctx.Err() != nil {
		logf("interrupted; no report written")
		return 130
	}

	md := rep.markdown()
	fmt.Print(md)
	if o.out != "" {
		if err := writeReport(o.out, rep.started, md); err != nil {
			logf("%v", err)
			return 1
		}
	}
	if failed {
		return 1
	}
	return 0
}

func ingestPhase(ctx context.Context, srv *server, o *options, rep *report) bool {
	s := sim.New(sim.Config{Seed: o.seed, Users: o.users, Rate: -1})
	ok := true
	for i := 0; i < o.ingestRuns && ctx.Err() == nil; i++ {
		plan := prepareIngest(s, o.obs, o.batch)
		logf("ingest run %d/%d: %d observations in %d requests of %d (%.1f MiB, generated in %v)",
			i+1, o.ingestRuns, plan.lines, len(plan.batches), o.batch, float64(plan.bytes)/(1<<20), plan.genTime.Round(time.Millisecond))
		r := runIngest(ctx, srv, plan, o.ingestConc, o)
		if ctx.Err() != nil {
			return false
		}
		rep.ingest = append(rep.ingest, r)
		logf("  accepted %d/%d in %v: %s obs/s accepted, %s obs/s incl. drain (%v), p50 %s p99 %s, server CPU %s (+%s drain), %s obs per server CPU-s, RSS %s",
			r.accepted, r.lines, r.elapsed.Round(time.Millisecond), fmtNum(r.acceptedRate), fmtNum(r.processedRate),
			r.drain.Round(time.Millisecond), fmtDur(r.lat.pct(.5)), fmtDur(r.lat.pct(.99)), fmtCPU(r.cpu), fmtCPU(r.drainCPU),
			fmtNum(r.perCPUDrain), fmtMB(r.rssAfter))
		if r.rejected > 0 || r.failed > 0 || r.accepted != int64(r.lines) {
			ok = false
			msg := fmt.Sprintf("ingest run %d: %d of %d lines accepted, %d rejected, %d requests failed", i+1, r.accepted, r.lines, r.rejected, r.failed)
			rep.warnings = append(rep.warnings, msg)
			logf("WARNING: %s", msg)
			for _, s := range append(r.rejectSamples, r.failSamples...) {
				logf("  %s", s)
				rep.warnings = append(rep.warnings, "  "+s)
			}
			if r.rejected > 0 {
				bad, samples := checkSimLines(plan)
				msg := fmt.Sprintf("local protocol.DecodeObservation check of the same lines: %d bad", bad)
				if len(samples) > 0 {
					msg += " (" + strings.Join(samples, "; ") + ")"
				}
				logf("  %s", msg)
				rep.warnings = append(rep.warnings, "  "+msg)
			}
		}
		if r.settleTimeoutReached {
			msg := fmt.Sprintf("ingest run %d: the server was still busy %v after the last answer (-drain-timeout)", i+1, o.drainTimeout)
			rep.warnings = append(rep.warnings, msg)
			logf("WARNING: %s", msg)
		}
		if r.serverDiedDuringRun || !srv.Alive() {
			rep.warnings = append(rep.warnings, "the server exited during ingest:\n"+srv.LogTail(2000))
			return false
		}
	}
	return ok
}

func restPhase(ctx context.Context, srv *server, o *options, rep *report) error {
	dtKey, err := issueKey(srv, "dt", o.dtPlan)
	if err != nil {
		return err
	}
	xgKey, err := issueKey(srv, "xg", o.xgPlan)
	if err != nil {
		return err
	}
	if o.restWarmup > 0 {
		w := runREST(ctx, srv, o.restPath, dtKey, o.restConns, o.restWarmup, false)
		if w.status[200] == 0 {
			return fmt.Errorf("warm-up on %s got no 200 answer (%v; %s; %v)", o.restPath, w.status, w.firstBadBody, w.errSamples)
		}
	}
	for i := 0; i < o.restRuns && ctx.Err() == nil; i++ {
		r := runREST(ctx, srv, o.restPath, dtKey, o.restConns, o.restDuration, true)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rep.rest = append(rep.rest, r)
		logf("REST run %d/%d %s: %s req/s, p50 %s p99 %s p99.9 %s, server CPU %s, %s req per server CPU-s, statuses %v",
			i+1, o.restRuns, o.restPath, fmtNum(r.rate), fmtDur(r.lat.pct(.5)), fmtDur(r.lat.pct(.99)), fmtDur(r.lat.pct(.999)),
			fmtCPU(r.cpu), fmtNum(r.perCPU), r.status)
		if r.status[200] != r.requests || r.errors > 0 {
			msg := fmt.Sprintf("REST run %d: %d of %d answers were not 200 (%v), %d transport errors %v; first: %s",
				i+1, r.requests-r.status[200], r.requests, r.status, r.errors, r.errSamples, r.firstBadBody)
			rep.warnings = append(rep.warnings, msg)
			logf("WARNING: %s", msg)
		}
	}
	if o.plansPath != "" && o.plansDuration > 0 && ctx.Err() == nil {
		r := runREST(ctx, srv, o.plansPath, xgKey, o.plansConns, o.plansDuration, true)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rep.plans = r
		logf("rate-limited run %s (xg %s): %s answers/s, 200: %d, 429: %d, other %v; server CPU %s",
			o.plansPath, o.xgPlan, fmtNum(r.rate), r.status[200], r.status[429], r.status, fmtCPU(r.cpu))
		if other := r.requests - r.status[200] - r.status[429]; other > 0 || r.errors > 0 {
			msg := fmt.Sprintf("rate-limited run: %d answers neither 200 nor 429 (%v), %d transport errors; first: %s", other, r.status, r.errors, r.firstBadBody)
			rep.warnings = append(rep.warnings, msg)
			logf("WARNING: %s", msg)
		}
	}
	return nil
}

func writeReport(dir string, at time.Time, md string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(dir, "rest-ingest-"+at.Format("2006-01-02")+".md")
	if err := os.WriteFile(name, []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "rest-ingest-latest.md"), []byte(md), 0o644); err != nil {
		return err
	}
	logf("wrote %s and rest-ingest-latest.md", name)
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

// machineInfo describes where the numbers were taken.
type machineInfo struct {
	cpus     int
	model    string
	goVer    string
	kernel   string
	memTotal string
}

func readMachine() machineInfo {
	m := machineInfo{cpus: runtime.NumCPU(), goVer: runtime.Version(), model: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.model = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && k == "MemTotal" {
				var kb int64
				fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
				m.memTotal = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
			}
		}
	}
	return m
}
