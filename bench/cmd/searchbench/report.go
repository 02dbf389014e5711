package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
)

type report struct {
	o       options
	started time.Time
	cpus    int
	goVer   string

	posts        int
	loadTime     time.Duration
	decodeTime   time.Duration
	stats        casearch.Stats
	heapBytes    int64
	bytesPerPost float64

	loadBefore, loadAfter string // /proc/loadavg around the run

	inProcess []kindResult
	mixed     mixedResult
	http      []httpResult
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func fmtNum(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if _, v, ok := strings.Cut(l, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown"
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func gitCommit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty=+uncommitted").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (r *report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	o := r.o
	p("# alertd CA Search bench, %s\n\n", r.started.Format("2006-01-02 15:04 MST"))
	p("Numbers from `bench/cmd/searchbench`: %s synthetic posts (`upstream/sim`) loaded into the in-memory CA Search index ", fmtNum(float64(r.posts)))
	p("through the same `Service.Observe` the engine's post tap calls, then searches timed in process ")
	p("(`ParseRequest`, `Service.Search`, response encoding) and over HTTP (the edge server on a loopback port). ")
	p("The load generator shares the machine's cores. Target: p99 under 20 ms per query kind.\n\n")

	p("## Machine and settings\n\n| | |\n|---|---|\n")
	p("| CPUs | %d × %s |\n| Go | %s |\n", r.cpus, cpuModel(), r.goVer)
	if c := gitCommit(); c != "" {
		p("| commit | %s |\n", c)
	}
	p("| posts | %s post observations over the last %v (sim seed %d, %d accounts; replies, quotes, reposts and re-observations in the simulator's shares) |\n",
		fmtNum(float64(o.posts)), o.window, o.seed, o.users)
	p("| queries | %s per kind in process, one at a time, after %s untimed; %s per kind over HTTP |\n",
		fmtNum(float64(o.queries)), fmtNum(float64(o.queries/10)), fmtNum(float64(o.httpQueries)))
	if r.loadBefore != "" {
		p("| machine load (1, 5, 15 min averages) | %s at the start, %s at the end (other work shares the cores) |\n", r.loadBefore, r.loadAfter)
	}
	if o.note != "" {
		p("| note | %s |\n", o.note)
	}
	p("\n## Summary\n\n| figure | value |\n|---|---|\n")
	for _, k := range r.inProcess {
		p("| %s: p50 / p99 (in process) | %s / %s |\n", k.name, fmtDur(k.lat.p50), fmtDur(k.lat.p99))
	}
	for _, h := range r.http {
		p("| %s: p50 / p99 (HTTP) | %s / %s |\n", h.name, fmtDur(h.lat.p50), fmtDur(h.lat.p99))
	}
	p("| index heap per post held | %s B |\n", fmtNum(r.bytesPerPost))
	p("| index heap, total | %.0f MiB for %s posts |\n", float64(r.heapBytes)/(1<<20), fmtNum(float64(r.stats.Live)))
	p("| load (decode + render + index) | %s posts/s |\n\n", fmtNum(float64(r.posts)/r.loadTime.Seconds()))

	p("## Load\n\n| | |\n|---|---|\n")
	p("| post observations | %s in %s (%s/s; JSON decoding %s of it) |\n", fmtNum(float64(r.posts)), fmtDur(r.loadTime),
		fmtNum(float64(r.posts)/r.loadTime.Seconds()), fmtDur(r.decodeTime))
	p("| posts held | %s (re-observations replace a version: %s slots in use) |\n", fmtNum(float64(r.stats.Live)), fmtNum(float64(r.stats.Slots)))
	p("| distinct terms | %s |\n| postings | %s (%.1f per post) |\n", fmtNum(float64(r.stats.Terms)), fmtNum(float64(r.stats.Postings)),
		float64(r.stats.Postings)/float64(max(r.stats.Slots, 1)))
	p("| encoded post items | %.0f MiB (%s B per post) |\n", float64(r.stats.ItemBytes)/(1<<20), fmtNum(float64(r.stats.ItemBytes)/float64(max(r.stats.Live, 1))))
	p("| heap growth | %.0f MiB (%s B per post): Go heap after GC, after minus before the load |\n\n",
		float64(r.heapBytes)/(1<<20), fmtNum(r.bytesPerPost))

	p("## Searches in process\n\n")
	p("| query kind | n | p50 | p90 | p99 | max | posts per answer | answers with a next page | data bytes per answer | examples |\n")
	p("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range r.inProcess {
		p("| %s | %d | %s | %s | %s | %s | %.0f | %.0f%% | %s | `%s` |\n", k.name, k.lat.n, fmtDur(k.lat.p50), fmtDur(k.lat.p90),
			fmtDur(k.lat.p99), fmtDur(k.lat.max), k.hits, 100*k.full, fmtNum(k.bytes), strings.Join(k.examples, "`, `"))
	}
	p("\n")
	if r.mixed.searches > 0 {
		m := r.mixed
		p("## Searches while posts come in\n\n")
		p("Two goroutines search (the four kinds in turn) while a third indexes %s posts over %s (%s/s; asked %d/s).\n\n",
			fmtNum(float64(m.inserted)), fmtDur(m.dur), fmtNum(float64(m.inserted)/m.dur.Seconds()), o.mixedRate)
		p("| searches | p50 | p90 | p99 | max |\n|---|---|---|---|---|\n")
		p("| %s | %s | %s | %s | %s |\n\n", fmtNum(float64(m.searches)), fmtDur(m.lat.p50), fmtDur(m.lat.p90), fmtDur(m.lat.p99), fmtDur(m.lat.max))
	}
	if len(r.http) > 0 {
		p("## Over HTTP\n\n")
		p("`POST /v1/search` on the edge server (fasthttp, key check, quota, handler) over loopback from a keep-alive `net/http` client, one call at a time; client-side wall time including reading the body.\n\n")
		p("| query kind | n | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|\n")
		for _, h := range r.http {
			p("| %s | %d | %s | %s | %s | %s |\n", h.name, h.lat.n, fmtDur(h.lat.p50), fmtDur(h.lat.p90), fmtDur(h.lat.p99), fmtDur(h.lat.max))
		}
		p("\n")
	}
	p("## Reading it\n\n")
	p("- A search walks the posting list of its rarest term newest first and checks each candidate's own term list for the other terms, so its cost grows with the posts it returns (up to 201) and, for several words, with how many posts of the rarest word lack the others.\n")
	p("- The slowest searches under ingest are Go GC assists: the index is a heap of over a gigabyte, and a search that allocates while the collector marks helps it.\n")
	p("- Most of an answer's time is copying the pre-encoded post items (about a kilobyte each) and the summary; the `original` of up to 30 replies comes from the index.\n")
	p("- Heap per post counts everything the index keeps: the encoded item, the slot, the id map, the postings and the term dictionary.\n\n")
	p("## How to reproduce\n\n`go run ./bench/cmd/searchbench -out bench/results` (or `make bench`). Flags: `go run ./bench/cmd/searchbench -h`.\n")
	return b.String()
}
