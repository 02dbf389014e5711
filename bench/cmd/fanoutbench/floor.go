//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// The floor comparison (issue 16): the same sessions and posts against
// bench/cmd/floorserver, which does nothing per delivery but one
// non-blocking write(2) of a pre-framed EVENT, and against alertd, in the
// order floor, alertd, alertd, floor, so that a drift of the machine's load
// weighs on both alike. The sessions move between the servers (the client
// cannot hold both sets of descriptors under RLIMIT_NOFILE).

// floorOrder is the order of the comparison's runs; with -floor-b the
// second alertd binary runs between the first's, so that both see the same
// drift of the machine's load too.
var (
	floorOrder  = []string{"floor", "alertd", "alertd", "floor"}
	floorOrderB = []string{"floor", "alertd", "alertd-b", "alertd-b", "alertd", "floor"}
)

// floorTarget is one server of the comparison and how its sessions log in.
type floorTarget struct {
	srv *server
	adm *admin
	key func(acct int) string
}

// floorResult is what the comparison measured.
type floorResult struct {
	runs        []*runResult // in floorOrder
	kinds       []string
	shortWrites int64 // floor writes a socket could not take whole
	profiles    []string
}

func (f *floorResult) of(kind string) []*runResult {
	var out []*runResult
	for i, r := range f.runs {
		if f.kinds[i] == kind {
			out = append(out, r)
		}
	}
	return out
}

// fraction is kind's median deliveries per server CPU-second over the
// floor's.
func (f *floorResult) fraction(kind string) float64 {
	fl := median(f.of("floor"), (*runResult).perCPUSecond)
	if fl == 0 {
		return 0
	}
	return median(f.of(kind), (*runResult).perCPUSecond) / fl
}

// floorCompare runs the comparison with p's rate and length; the sessions
// are logged in to alertd before and after.
func (b *bench) floorCompare(ctx context.Context, p *poster, tmp string) error {
	o, w := b.o, b.w
	bin := o.floorBin
	var err error
	if bin == "" {
		logf("building ./bench/cmd/floorserver")
		if bin, err = alertdproc.BuildPackage(ctx, tmp, "./bench/cmd/floorserver", "floorserver"); err != nil {
			return err
		}
	}
	dir := filepath.Join(tmp, "floor")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fsrv, err := alertdproc.Start(ctx, alertdproc.Options{
		Bin: bin, Dir: dir, Internal: true, Ready: o.readyWait, Grace: 5 * time.Second,
		SysProcAttr: alertdproc.KillOnParentDeath(),
		DropEnv:     []string{"ALERTD_"},
		ExtraArgs:   []string{"--handles", strconv.Itoa(w.handles), "--targets", strconv.Itoa(w.targets), "--event-bytes", strconv.Itoa(o.floorPad)},
	})
	if err != nil {
		return fmt.Errorf("floor server: %w", err)
	}
	defer fsrv.Stop()
	targets := map[string]floorTarget{
		"floor":  {fsrv, newAdmin(fsrv.Base, fsrv.Token, o.senders+4), func(a int) string { return "floor_" + strconv.Itoa(a) }},
		"alertd": {b.srv, b.adm, func(a int) string { return w.keys[a] }},
	}
	order := floorOrder
	if o.floorB != "" {
		t, err := b.startB(ctx, tmp)
		if err != nil {
			return fmt.Errorf("-floor-b: %w", err)
		}
		defer t.srv.Stop()
		targets["alertd-b"] = t
		order = floorOrderB
	}
	res := &floorResult{}
	b.rep.floor = res
	at := "alertd"
	move := func(to string) error {
		if to == at {
			return nil
		}
		for _, l := range b.loops {
			l.closeAll()
		}
		if err := waitWSAt(ctx, targets[at].srv.Base, 0, 30*time.Second); err != nil {
			return fmt.Errorf("%s after closing the sessions: %w", at, err)
		}
		t := targets[to]
		logf("floor comparison: logging %d sessions in to %s", o.sessions, to)
		if err := b.connectTo(ctx, o.sessions, t.srv.Addr, t.key); err != nil {
			return fmt.Errorf("%s: %w", to, err)
		}
		at = to
		return waitWSAt(ctx, t.srv.Base, int64(o.sessions), 30*time.Second)
	}
	defer func() { p.a, p.srv = b.adm, b.srv }()
	seen := map[string]int{}
	for _, kind := range order {
		if err := move(kind); err != nil {
			return err
		}
		srv := targets[kind].srv
		p.a, p.srv = targets[kind].adm, srv
		seen[kind]++
		if o.warmup > 0 {
			if _, err := p.run(ctx, kind+" warm-up", o.baseRate, o.warmup); err != nil {
				return err
			}
			time.Sleep(time.Second)
		}
		stopProf := b.floorProfiles(ctx, srv, kind, seen[kind] == 2, res)
		r, err := p.run(ctx, fmt.Sprintf("%s %d", kind, seen[kind]), o.baseRate, o.baseDuration)
		stopProf()
		if err != nil {
			return err
		}
		logf("%s", r.line())
		res.runs = append(res.runs, r)
		res.kinds = append(res.kinds, kind)
		time.Sleep(time.Second)
	}
	res.shortWrites = floorShortWrites(fsrv.Base)
	return move("alertd")
}

// startB starts the -floor-b alertd binary and sets up the same workload on
// it (its own keys).
func (b *bench) startB(ctx context.Context, tmp string) (floorTarget, error) {
	o := b.o
	dir := filepath.Join(tmp, "alertd-b")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return floorTarget{}, err
	}
	srv, err := startServer(ctx, o.floorB, dir, true, o.readyWait, strings.Fields(o.argsB)...)
	if err != nil {
		return floorTarget{}, err
	}
	adm := newAdmin(srv.Base, srv.Token, max(o.setupConc, o.senders)+4)
	w := *b.w
	w.keys = nil
	fail := func(err error) (floorTarget, error) { srv.Stop(); return floorTarget{}, err }
	logf("-floor-b: setting up %s", o.floorB)
	if err := setupUsers(ctx, adm, &w); err != nil {
		return fail(err)
	}
	if err := setupKeys(ctx, adm, &w, o.setupConc); err != nil {
		return fail(err)
	}
	if err := waitUsers(ctx, adm, &w, w.keys[0], 30*time.Second); err != nil {
		return fail(err)
	}
	if err := setupTargets(ctx, adm, &w, o.setupConc, nil); err != nil {
		return fail(err)
	}
	srv.Settle(ctx, 0.1, 200*time.Millisecond, 20*time.Second)
	return floorTarget{srv, adm, func(a int) string { return w.keys[a] }}, nil
}

// floorProfiles starts, when on and with -profile set, a pprof CPU profile
// (and with -perf a perf record) of srv over the next -profile-seconds; the
// returned func waits for them.
func (b *bench) floorProfiles(ctx context.Context, srv *server, kind string, on bool, res *floorResult) func() {
	o := b.o
	if !on || o.profile == "" {
		return func() {}
	}
	done := make(chan string, 2)
	n := 1
	go func() {
		path := o.profile + ".floor-" + kind
		if err := fetchFrom(ctx, srv, fmt.Sprintf("/debug/pprof/profile?seconds=%d", o.profileSec), path); err != nil {
			done <- "pprof " + kind + ": " + err.Error()
			return
		}
		done <- "pprof " + kind + ": " + path
	}()
	if o.perf {
		n++
		go func() {
			path := o.profile + ".perf-" + kind
			cmd := exec.CommandContext(ctx, "perf", "record", "-q", "-F", "499", "-g", "-p", strconv.Itoa(srv.Cmd.Process.Pid),
				"-o", path, "--", "sleep", strconv.Itoa(o.profileSec))
			if out, err := cmd.CombinedOutput(); err != nil {
				done <- fmt.Sprintf("perf %s: %v %s", kind, err, out)
				return
			}
			done <- "perf " + kind + ": " + path
		}()
	}
	return func() {
		for range n {
			res.profiles = append(res.profiles, <-done)
		}
	}
}

// floorShortWrites reads the floor server's count of writes a socket could
// not take whole (those sockets were dropped: the run lost deliveries).
func floorShortWrites(base string) int64 {
	resp, err := http.Get(base + "/health")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var h struct {
		Short int64 `json:"short_writes"`
	}
	if json.NewDecoder(resp.Body).Decode(&h) != nil {
		return -1
	}
	return h.Short
}

// floorReport writes the comparison's section.
func (rep *report) floorReport(p func(string, ...any)) {
	f := rep.floor
	if f == nil || len(f.runs) == 0 {
		return
	}
	fl, al, ab := f.of("floor"), f.of("alertd"), f.of("alertd-b")
	p("## Floor: one write(2) per delivery (issue 16)")
	p("")
	p("`bench/cmd/floorserver` speaks the realtime socket's HELLO/LOGIN/READY/HEARTBEAT and writes each post's pre-framed EVENT with one non-blocking `write(2)` per subscribed socket, from the ingest request's goroutine, and nothing else. Same sessions, posts and client loops as alertd, in the order %v; each run after its own %v warm-up.", f.kinds, rep.o.warmup)
	if len(ab) > 0 {
		p("")
		p("*alertd-b* is `-floor-b %s` with arguments `%s`, *alertd* has `%s`; both set up with the same workload.", rep.o.floorB, rep.o.argsB, rep.o.args)
	}
	p("")
	runTable(p, f.runs)
	p("")
	spreadTable(p, f.runs)
	p("")
	cols := [][]*runResult{fl, al}
	head := "| figure | floor (median) | alertd (median) |"
	if len(ab) > 0 {
		cols = append(cols, ab)
		head += " alertd-b (median) |"
	}
	row := func(name string, v func([]*runResult) string) {
		line := "| " + name + " |"
		for _, c := range cols {
			line += " " + v(c) + " |"
		}
		p("%s", line)
	}
	pct := func(rs []*runResult, q float64) string {
		return ms(time.Duration(median(rs, func(r *runResult) float64 { return float64(r.pct(q)) })))
	}
	p("%s", head)
	p("|---|---|---|%s", strings.Repeat("---|", len(cols)-2))
	row("deliveries per server CPU-second", func(rs []*runResult) string { return num(median(rs, (*runResult).perCPUSecond)) })
	row("fraction of the floor", func(rs []*runResult) string {
		return fmt.Sprintf("%.0f%%", 100*median(rs, (*runResult).perCPUSecond)/median(fl, (*runResult).perCPUSecond))
	})
	row("p50 / p99 / p99.9", func(rs []*runResult) string { return pct(rs, 50) + " / " + pct(rs, 99) + " / " + pct(rs, 99.9) })
	row("EVENT payload bytes per delivery", func(rs []*runResult) string { return fmt.Sprintf("%.0f", payloadPer(rs)) })
	p("")
	p("**alertd at %.0f%% of the floor's deliveries per server CPU-second.** Floor writes a socket could not take whole: %d.", 100*f.fraction("alertd"), f.shortWrites)
	for _, x := range f.profiles {
		p("- profile %s", x)
	}
	p("")
}

func payloadPer(runs []*runResult) float64 {
	var b, n int64
	for _, r := range runs {
		b += r.payloadBytes
		n += r.delivered
	}
	if n == 0 {
		return 0
	}
	return float64(b) / float64(n)
}
