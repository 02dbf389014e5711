//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// bench is one whole run: server, workload, client loops, results.
type bench struct {
	o     *options
	srv   *server
	adm   *admin
	w     *workload
	rec   *recorder
	loops []*loop
	rep   *report
	tmp   string // the run's temp dir
}

func run(ctx context.Context, o *options) int {
	// More Ps than cores: a client loop busy with a batch must not hold back
	// the post schedule for Go's 10 ms time slice; the kernel shares the
	// cores among the threads.
	runtime.GOMAXPROCS(max(runtime.NumCPU(), o.loops+2))
	rep := &report{started: time.Now(), loadStart: loadAvg(), o: o}
	nofile, err := raiseNoFile()
	if err != nil {
		logf("raise RLIMIT_NOFILE: %v", err)
		return 1
	}
	rep.nofile = nofile
	w, err := newWorkload(o.handles, o.sessions, o.watchers, o.perAccount, o.idleSessions)
	if err != nil {
		logf("%v", err)
		return 2
	}
	if need := o.sessions + w.idleExtra + 200; uint64(need) > nofile {
		logf("%d sockets need RLIMIT_NOFILE above %d", need, nofile)
		return 2
	}
	tmp, bin, cleanup, err := workDir(ctx, o, "fanoutbench-")
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer cleanup()
	// The internal listener is always on: the idle-memory phase forces GCs
	// through its pprof, -scrape reads its /metrics. The -scrape side
	// traffic's webhook goes to this process, on loopback.
	var extra []string
	if o.scrape > 0 {
		extra = []string{"--webhook-allow-cidrs", "127.0.0.0/8"}
	}
	extra = append(extra, strings.Fields(o.args)...)
	srv, err := startServer(ctx, bin, tmp, true, o.readyWait, extra...)
	if err != nil {
		logf("%v", err)
		return 1
	}
	b := &bench{o: o, srv: srv, adm: newAdmin(srv.Base, srv.Token, max(o.setupConc, o.senders)+4), w: w, rep: rep, tmp: tmp}
	rep.w = w
	rep.startSample = srv.Sample()
	err = b.scenario(ctx)
	// SIGTERM with the sessions still open: shutdown closes them all (1001).
	for _, l := range b.loops {
		l.mu.Lock()
		for _, c := range l.conns {
			if !c.closed {
				rep.openAtStop++
			}
		}
		l.mu.Unlock()
	}
	stopAt := time.Now()
	rep.exitErr = srv.Stop()
	rep.stopTook = time.Since(stopAt)
	rep.cleanExit = rep.exitErr == nil
	rep.levels = srv.LogLevels()
	for _, l := range b.loops {
		l.stop()
	}
	if err != nil {
		logf("%v", err)
		if srv.LogPath != "" {
			logf("server log tail:\n%s", srv.LogTail(1500))
		}
		return 1
	}
	rep.finished = time.Now()
	rep.loadEnd = loadAvg()
	if err := rep.write(o.out); err != nil {
		logf("write report: %v", err)
		return 1
	}
	if len(rep.warnings()) > 0 {
		return 1
	}
	return 0
}

func (b *bench) scenario(ctx context.Context) error {
	o, w, rep := b.o, b.w, b.rep
	t := time.Now()
	if err := setupUsers(ctx, b.adm, w); err != nil {
		return fmt.Errorf("users: %w", err)
	}
	logf("issuing %d dt enterprise keys", w.accounts)
	if err := setupKeys(ctx, b.adm, w, o.setupConc); err != nil {
		return fmt.Errorf("keys: %w", err)
	}
	rep.keysTime = time.Since(t)
	if err := waitUsers(ctx, b.adm, w, w.keys[0], 30*time.Second); err != nil {
		return err
	}
	t = time.Now()
	logf("adding %d targets (%d accounts × %d)", w.accounts*w.targets, w.accounts, w.targets)
	err := setupTargets(ctx, b.adm, w, o.setupConc, func(done, total int) {
		logf("  %d/%d targets, %.0f/s", done, total, float64(done)/time.Since(t).Seconds())
	})
	if err != nil {
		return fmt.Errorf("targets: %w", err)
	}
	rep.targetsTime = time.Since(t)

	b.srv.Settle(ctx, 0.1, 200*time.Millisecond, 20*time.Second)
	rep.baseline, rep.baseHeap = b.settledMemory(ctx)

	maxPosts := int(float64(o.baseRate)*(o.warmup+time.Duration(o.baseRuns+1)*o.baseDuration).Seconds()) + 10
	for _, r := range o.rates {
		maxPosts += int(float64(r)*o.sweepDur.Seconds()) + 10
	}
	if o.floor {
		maxPosts += len(floorOrderB) * (int(float64(o.baseRate)*(o.warmup+o.baseDuration).Seconds()) + 20)
	}
	if o.scrape > 0 {
		maxPosts += 2 * o.scrapePairs * (int(float64(o.baseRate)*o.baseDuration.Seconds()) + 10)
	}
	b.rec = newRecorder(maxPosts)
	fds := make([]atomic.Pointer[cconn], rep.nofile+1)
	for i := range o.loops {
		l, err := newLoop(b.rec, fds, uint32(i+1)*2654435761)
		if err != nil {
			return err
		}
		l.nap.Store(int64(o.clientNap))
		b.loops = append(b.loops, l)
		go l.run()
	}

	// Sessions: the fan-out ones first, then the idle phase's extra ones.
	t = time.Now()
	total := o.sessions + w.idleExtra
	logf("logging in %d sessions (%d for the fan-out runs)", total, o.sessions)
	if err := b.connect(ctx, total); err != nil {
		return err
	}
	rep.connectTime = time.Since(t)
	rep.sessionsOpen = total
	if w.idleExtra > 0 || o.idleSessions > 0 {
		if err := b.idleMemory(ctx, total); err != nil {
			return err
		}
	}
	if w.idleExtra > 0 {
		n := 0
		for _, l := range b.loops {
			n += l.closeExtra()
		}
		if err := b.waitWS(ctx, int64(o.sessions), 30*time.Second); err != nil {
			return fmt.Errorf("after closing %d idle sessions: %w", n, err)
		}
	}

	p := &poster{a: b.adm, w: w, rec: b.rec, loops: b.loops, srv: b.srv, workers: o.senders, drain: o.drain}
	if o.floor {
		if err := b.floorCompare(ctx, p, b.tmp); err != nil {
			return fmt.Errorf("floor comparison: %w", err)
		}
	}
	if o.warmup > 0 {
		logf("warm-up: %v at %d posts/s", o.warmup, o.baseRate)
		if _, err := p.run(ctx, "warm-up", o.baseRate, o.warmup); err != nil {
			return err
		}
		time.Sleep(time.Second)
	}
	for i := range o.baseRuns {
		var prof chan error
		if o.profile != "" && i == min(1, o.baseRuns-1) {
			prof = make(chan error, 1)
			go func() { prof <- b.fetchProfile(ctx, o.profile, o.profileSec) }()
		}
		r, err := p.run(ctx, fmt.Sprintf("base %d", i+1), o.baseRate, o.baseDuration)
		if err != nil {
			return err
		}
		logf("%s", r.line())
		rep.base = append(rep.base, r)
		if prof != nil {
			if err := <-prof; err != nil {
				rep.notes = append(rep.notes, "profile: "+err.Error())
			} else {
				logf("server CPU profile written to %s", o.profile)
			}
		}
		time.Sleep(time.Second)
	}
	if o.scrape > 0 {
		if err := b.scrapeCompare(ctx, p); err != nil {
			return err
		}
	}
	for _, rate := range o.rates {
		r, err := p.run(ctx, fmt.Sprintf("sweep %d/s", rate), rate, o.sweepDur)
		if err != nil {
			return err
		}
		logf("%s", r.line())
		rep.sweep = append(rep.sweep, r)
		if !r.meets(o.p99Target) && !o.keepSweeping {
			break
		}
		b.srv.Settle(ctx, 0.2, 200*time.Millisecond, 10*time.Second)
	}
	if o.napCompare && o.clientNap > 0 {
		// The same base run with a client that wakes for every frame: on
		// loopback the server's CPU includes waking its readers.
		for _, l := range b.loops {
			l.nap.Store(0)
		}
		time.Sleep(time.Second)
		r, err := p.run(ctx, "base, client nap 0", o.baseRate, o.baseDuration)
		if err != nil {
			return err
		}
		logf("%s", r.line())
		rep.napZero = r
	}
	rep.stray = b.rec.stray.Load()
	for _, l := range b.loops {
		l.mu.Lock()
		rep.acks += l.acks
		rep.disconnects += l.disconnect
		rep.serverEnds += l.serverEnds
		if l.firstError != "" && rep.clientError == "" {
			rep.clientError = l.firstError
		}
		l.mu.Unlock()
	}
	rep.endSample = b.srv.Sample()
	return nil
}

// connect logs in n sessions: the first o.sessions are account i/perAccount's
// (i%perAccount)th socket; the rest, extra idle sessions, are one more
// socket of account (i - sessions) % accounts.
func (b *bench) connect(ctx context.Context, n int) error {
	return b.connectTo(ctx, n, b.srv.Addr, func(acct int) string { return b.w.keys[acct] })
}

// connectTo is connect against the server at addr, with key(account) as
// each account's key.
func (b *bench) connectTo(ctx context.Context, n int, addr string, key func(acct int) string) error {
	return b.connectSpread(ctx, n, []string{addr}, key)
}

// connectSpread is connectTo over several servers: session i logs in to
// addrs[i % len(addrs)] (-cluster: the nodes of one cluster).
func (b *bench) connectSpread(ctx context.Context, n int, addrs []string, key func(acct int) string) error {
	o, w := b.o, b.w
	var done atomic.Int64
	start := time.Now()
	return parallel(ctx, n, o.dialConc, func(ctx context.Context, i int) error {
		acct, extra := i/o.perAccount, false
		if i >= o.sessions {
			acct, extra = (i-o.sessions)%w.accounts, true
		}
		local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%o.localAddrs))}
		var s *session
		var err error
		for try := 0; ; try++ {
			if s, err = dialSession(addrs[i%len(addrs)], local, key(acct), 30*time.Second); err == nil || try == 2 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("session %d (account %d): %w", i, acct, err)
		}
		s.node = i % len(addrs)
		if err := b.loops[i%len(b.loops)].add(s, extra); err != nil {
			return err
		}
		if d := done.Add(1); d%5000 == 0 {
			logf("  %d/%d sessions, %.0f/s", d, n, float64(d)/time.Since(start).Seconds())
		}
		return nil
	})
}

// idleMemory measures RSS per idle logged-in session: RSS after the sessions
// sat idle, minus RSS before any socket, over the sessions.
func (b *bench) idleMemory(ctx context.Context, n int) error {
	if err := b.waitWS(ctx, int64(n), 30*time.Second); err != nil {
		return err
	}
	logf("idle memory: %d sessions, waiting %v", n, b.o.idleWait)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(b.o.idleWait):
	}
	b.srv.Settle(ctx, 0.05, 200*time.Millisecond, 20*time.Second)
	s, heap := b.settledMemory(ctx)
	b.rep.idle = &idleResult{sessions: n, before: b.rep.baseline, after: s, heapBefore: b.rep.baseHeap, heapAfter: heap}
	if b.o.profile != "" {
		if err := b.fetch(ctx, "/debug/pprof/heap", b.o.profile+".heap"); err != nil {
			b.rep.notes = append(b.rep.notes, "heap profile: "+err.Error())
		}
	}
	for _, l := range b.loops {
		if got := l.open(); got != 0 {
			b.rep.idle.clientOpen += got
		}
	}
	logf("idle memory: %.1f KiB per session", b.rep.idle.perSessionKiB())
	return nil
}

// settledMemory forces two GCs in the server (pprof's heap?gc=1), waits a
// second, and returns its RSS and live heap (HeapAlloc after the GC).
func (b *bench) settledMemory(ctx context.Context) (procSample, heapStats) {
	var hs heapStats
	for range 2 {
		hs = b.heap(ctx, true)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
	s := b.srv.Sample()
	// The free unreleased heap as of the RSS sample, not of the GC a second
	// before: the scavenger returns setup's garbage meanwhile.
	now := b.heap(ctx, false)
	hs.idle, hs.released = now.idle, now.released
	return s, hs
}

// heapStats are runtime.MemStats fields from the debug=1 heap profile.
// idle - released is heap the runtime holds free but has not returned to
// the kernel yet (the scavenger is lazy): resident, counted in RSS, owned by
// no one. Setup's garbage leaves tens of MiB of it, which sessions then
// fill without RSS growing.
type heapStats struct{ alloc, inuse, sys, idle, released, stack int64 }

// freeResident is heap the runtime holds free and has not released.
func (h heapStats) freeResident() int64 { return h.idle - h.released }

func (b *bench) heap(ctx context.Context, gc bool) heapStats {
	var hs heapStats
	url := "http://" + b.srv.InternalAddr + "/debug/pprof/heap?debug=1"
	if gc {
		url += "&gc=1"
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return hs
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		var v int64
		switch {
		case sscan(line, "# HeapAlloc = %d", &v):
			hs.alloc = v
		case sscan(line, "# HeapInuse = %d", &v):
			hs.inuse = v
		case sscan(line, "# Sys = %d", &v):
			hs.sys = v
		case sscan(line, "# HeapIdle = %d", &v):
			hs.idle = v
		case sscan(line, "# HeapReleased = %d", &v):
			hs.released = v
		case sscan(line, "# Stack = %d", &v):
			hs.stack = v
		}
	}
	return hs
}

func sscan(line, format string, v *int64) bool {
	n, err := fmt.Sscanf(line, format, v)
	return err == nil && n == 1
}

// fetch saves a pprof endpoint of the server to path.
func (b *bench) fetch(ctx context.Context, endpoint, path string) error {
	return fetchFrom(ctx, b.srv, endpoint, path)
}

// fetchFrom saves a pprof endpoint of srv (alertd or the floor) to path.
func fetchFrom(ctx context.Context, srv *server, endpoint, path string) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+srv.InternalAddr+endpoint, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: HTTP %d", endpoint, resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// waitWS polls /health until ws_connections is want.
func (b *bench) waitWS(ctx context.Context, want int64, timeout time.Duration) error {
	return waitWSAt(ctx, b.srv.Base, want, timeout)
}

// waitWSAt is waitWS against the server at base (alertd or the floor: both
// answer /health with ws_connections).
func waitWSAt(ctx context.Context, base string, want int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last int64 = -1
	for {
		var h struct {
			WS int64 `json:"ws_connections"`
		}
		resp, err := http.Get(base + "/health")
		if err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			last = h.WS
			if h.WS == want {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("server has %d WebSockets, want %d", last, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// fetchProfile saves a CPU profile of the server taken over sec seconds.
func (b *bench) fetchProfile(ctx context.Context, path string, sec int) error {
	return b.fetch(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", sec), path)
}
