// Command searchbench measures CA Search (spec 2, POST /v1/search): it loads
// a 24-hour window of synthetic posts from upstream/sim into the in-memory
// index in process (the same Service.Observe the engine's post tap calls),
// then times searches by contract address, ticker and keywords through
// Service.Search and the response encoding, measures the index's memory,
// times the same queries under concurrent ingest, and finally over real
// HTTP against the edge server on a loopback port. It writes a markdown
// report; numbers are for reading, never asserted.
//
//	go run ./bench/cmd/searchbench -out bench/results
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

type options struct {
	out         string
	posts       int
	users       int
	seed        int64
	queries     int
	window      time.Duration
	mixedFor    time.Duration
	mixedRate   int
	httpQueries int
	note        string
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "bench/results", "directory of the markdown report (empty: stdout only)")
	flag.IntVar(&o.posts, "posts", 1_000_000, "post observations loaded into the window")
	flag.IntVar(&o.users, "users", 2000, "accounts of the synthetic world")
	flag.Int64Var(&o.seed, "seed", 1, "synthetic world seed")
	flag.IntVar(&o.queries, "queries", 2000, "timed searches per query kind (in process)")
	flag.DurationVar(&o.window, "span", 23*time.Hour+30*time.Minute, "how far back the loaded posts reach (inside the 24 h window)")
	flag.DurationVar(&o.mixedFor, "mixed", 10*time.Second, "length of the searches-under-ingest run (0 skips it)")
	flag.IntVar(&o.mixedRate, "mixed-rate", 1000, "posts per second ingested during the mixed run")
	flag.IntVar(&o.httpQueries, "http-queries", 400, "timed HTTP searches per query kind (0 skips HTTP)")
	flag.StringVar(&o.note, "note", "", "free text for the report's settings table")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "searchbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	r := &report{o: o, started: time.Now().UTC(), cpus: runtime.NumCPU(), goVer: runtime.Version(), loadBefore: loadAvg()}
	logf("loading %d posts (sim seed %d, %d accounts) into the index", o.posts, o.seed, o.users)
	w, err := load(o, r)
	if err != nil {
		return err
	}
	logf("loaded in %v: %d posts held, %.0f B/post of heap", r.loadTime.Round(time.Millisecond), r.stats.Live, r.bytesPerPost)
	for _, k := range w.kinds() {
		logf("timing %d %s searches", o.queries, k.name)
		r.inProcess = append(r.inProcess, timeKind(w, k, o.queries))
	}
	if o.mixedFor > 0 {
		logf("searching for %v while ingesting %d posts/s", o.mixedFor, o.mixedRate)
		r.mixed = mixedRun(w, o)
	}
	if o.httpQueries > 0 {
		logf("timing %d HTTP searches per kind", o.httpQueries)
		if r.http, err = httpRun(w, o); err != nil {
			return err
		}
	}
	r.loadAfter = loadAvg()
	md := r.markdown()
	fmt.Print(md)
	if o.out == "" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	name := filepath.Join(o.out, "ca-search-"+r.started.Format("2006-01-02")+".md")
	for _, p := range []string{name, filepath.Join(o.out, "ca-search-latest.md")} {
		if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
			return err
		}
	}
	logf("report written to %s", name)
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s searchbench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
