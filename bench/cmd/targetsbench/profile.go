package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// profile is a CPU profile of the server during the adds.
type profile struct {
	top   string // `go tool pprof -top` (flat)
	areas []area
	err   string
}

// area is the share of the samples under one function (cumulative).
type area struct {
	what string
	pct  float64
}

// areas names the functions whose cumulative share tells where an add's
// time goes; a sample may count in several (commit is inside the committer).
var areas = []struct{ fn, what string }{
	{"github.com/valyala/fasthttp.(*workerPool).workerFunc", "HTTP server: read request, route, handler, write answer"},
	{"net.(*netFD).Read", "  of which socket reads (syscalls)"},
	{"net.(*netFD).Write", "  of which socket writes (syscalls)"},
	{"github.com/alertd/alertd/edge/api/b2b.(*api).addTarget", "  of which the add handler"},
	{"github.com/alertd/alertd/actors/state/targets.(*Registry).Add", "    of which Registry.Add (reserve, wait for the commit)"},
	{"github.com/alertd/alertd/actors/state/targets.(*Registry).commitLoop", "committer goroutine: snapshot, store write (journal mode: append), settle"},
	{"github.com/alertd/alertd/persistence/sqlstore.(*Store).WriteTargets", "  of which the store write (SQL)"},
	{"github.com/alertd/alertd/actors/state/targets.(*Registry).journalRound", "  of which the journal round (journal mode: encode, append, settle)"},
	{"github.com/alertd/alertd/persistence/ingestlog.(*Log).loop", "journal writer goroutine (write to the file)"},
	{"github.com/alertd/alertd/actors/state/targets.(*Registry).flushLoop", "flusher goroutine (journal mode: the store written behind, large transactions)"},
	{"github.com/alertd/alertd/persistence/sqlstore.(*Store).WriteTargetRows", "  of which the store write (SQL)"},
	{"database/sql.(*Tx).Commit", "the transactions' commits (committer or flusher)"},
	{"runtime.gcBgMarkWorker", "garbage collector (background marking)"},
}

// cpuProfile takes a CPU profile of the server for d; the file stays in dir.
func cpuProfile(srv *alertdproc.Server, bin, dir string, d time.Duration) *profile {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", srv.InternalAddr, int(d.Seconds())))
	if err != nil {
		return &profile{err: err.Error()}
	}
	defer resp.Body.Close()
	path := filepath.Join(dir, "cpu.pprof")
	f, err := os.Create(path)
	if err != nil {
		return &profile{err: err.Error()}
	}
	_, err = io.Copy(f, resp.Body)
	f.Close()
	if err != nil {
		return &profile{err: err.Error()}
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=25", bin, path).CombinedOutput()
	if err != nil {
		return &profile{err: fmt.Sprintf("go tool pprof: %v\n%s", err, top)}
	}
	p := &profile{top: string(top)}
	cum, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=100000", bin, path).CombinedOutput()
	if err != nil {
		return p
	}
	share := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(cum)))
	for sc.Scan() {
		// flat flat% sum% cum cum% name
		f := strings.Fields(sc.Text())
		if len(f) < 6 || !strings.HasSuffix(f[4], "%") {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64); err == nil {
			share[strings.Join(f[5:], " ")] = v
		}
	}
	for _, a := range areas {
		p.areas = append(p.areas, area{what: a.what, pct: share[a.fn]})
	}
	return p
}
