//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// The cluster scenario (issue 14, -cluster N): the same workload on N
// alertd nodes of one cluster over one PostgreSQL database (a fresh one per
// group), sessions spread over the nodes (session i on node i % N), post seq
// ingested on node seq % N. Besides the single-node figures it reports the
// latency of sessions on the ingesting node and on the others, each node's
// CPU, and the messages the nodes sent each other per post
// (alertd_cluster_messages_total). With -cluster-compare a single node
// without --cluster-name ("plain", same store) runs interleaved with the
// cluster, its sessions moved between them (the client cannot hold both sets
// of descriptors under RLIMIT_NOFILE).

// group is one system under test: one plain node, or the nodes of a cluster.
type group struct {
	name   string
	nodes  []*server
	admins []*admin
	w      workload // its own keys
	drop   func() error
}

func (g *group) addrs() []string {
	var out []string
	for _, s := range g.nodes {
		out = append(out, s.Addr)
	}
	return out
}

// sample is the sum of the nodes' CPU time and RSS.
func (g *group) sample() procSample {
	var sum procSample
	for _, s := range g.nodes {
		x := s.Sample()
		sum.At, sum.CPU, sum.RSSKB = x.At, sum.CPU+x.CPU, sum.RSSKB+x.RSSKB
	}
	return sum
}

func (g *group) stop() error {
	var first error
	for i := len(g.nodes) - 1; i >= 0; i-- {
		if err := g.nodes[i].Stop(); err != nil && first == nil {
			first = fmt.Errorf("%s node %d: %w", g.name, i, err)
		}
	}
	if g.drop != nil {
		if err := g.drop(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// clusterRun is one fixed-rate run of a group, with what only a cluster
// shows.
type clusterRun struct {
	*runResult
	group   string
	nodes   int
	msgs    [3]float64      // alertd_cluster_messages_total deltas: observation, event, control
	nodeCPU []time.Duration // per node
}

// perPost is kind k's messages between nodes per post ingested.
func (c *clusterRun) perPost(k int) float64 {
	if c.posts == 0 {
		return 0
	}
	return c.msgs[k] / float64(c.posts)
}

// clusterPorts returns n --cluster-addr on loopback whose port and port + 1
// (membership) are both free, below Linux's ephemeral range.
func clusterPorts(n int) []string {
	var out []string
	for len(out) < n {
		p := 20000 + 2*rand.IntN(5000)
		free := true
		for _, port := range []int{p, p + 1} {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			out = append(out, "127.0.0.1:"+strconv.Itoa(p))
		}
	}
	return out
}

// startGroup starts a group of n nodes (n == 0: one plain node without
// --cluster-name) on a fresh database, sets the workload up through node 0
// before the others start (they read it from the store as they start, and
// no change feed runs during setup) and waits until every node lists every
// member.
func (b *bench) startGroup(ctx context.Context, name string, n int, bin string) (*group, error) {
	o := b.o
	g := &group{name: name, w: *b.w}
	g.w.keys = nil
	db, drop, err := alertdproc.FreshDatabase(ctx, o.databaseURL, "fanoutbench")
	if err != nil {
		return nil, err
	}
	g.drop = drop
	var cargs []string
	clusterName := "bench-" + strconv.Itoa(rand.IntN(1e6))
	addrs := clusterPorts(max(n, 1))
	start := func(i int) error {
		dir := filepath.Join(b.tmp, fmt.Sprintf("%s-node%d", name, i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		args := strings.Fields(o.args)
		if n > 0 {
			cargs = []string{"--cluster-name", clusterName, "--cluster-addr", addrs[i], "--cluster-peers", strings.Join(addrs, ",")}
			args = append(cargs, args...)
		}
		s, err := alertdproc.Start(ctx, alertdproc.Options{Bin: bin, Dir: dir, DatabaseURL: db, ExtraArgs: args,
			DropEnv:     []string{"DATABASE_URL=", "ALERTD_"},
			SysProcAttr: alertdproc.KillOnParentDeath(), Internal: true, Ready: o.readyWait,
			Grace: 15 * time.Second, QuitBeforeKill: true})
		if err != nil {
			return fmt.Errorf("%s node %d: %w", name, i, err)
		}
		g.nodes = append(g.nodes, s)
		g.admins = append(g.admins, newAdmin(s.Base, s.Token, max(o.setupConc, o.senders)+4))
		return nil
	}
	fail := func(err error) (*group, error) { _ = g.stop(); return nil, err }
	if err := start(0); err != nil {
		return fail(err)
	}
	a := g.admins[0] // each node has its own admin token (alertdproc)
	t := time.Now()
	if err := setupUsers(ctx, a, &g.w); err != nil {
		return fail(fmt.Errorf("%s users: %w", name, err))
	}
	logf("%s: issuing %d dt enterprise keys", name, g.w.accounts)
	if err := setupKeys(ctx, a, &g.w, o.setupConc); err != nil {
		return fail(fmt.Errorf("%s keys: %w", name, err))
	}
	if err := waitUsers(ctx, a, &g.w, g.w.keys[0], 30*time.Second); err != nil {
		return fail(err)
	}
	logf("%s: adding %d targets", name, g.w.accounts*g.w.targets)
	if err := setupTargets(ctx, a, &g.w, o.setupConc, func(done, total int) {
		logf("  %d/%d targets, %.0f/s", done, total, float64(done)/time.Since(t).Seconds())
	}); err != nil {
		return fail(fmt.Errorf("%s targets: %w", name, err))
	}
	for i := 1; i < n; i++ {
		if err := start(i); err != nil {
			return fail(err)
		}
		// The directory (categories, profiles) is per node.
		if err := setupUsers(ctx, g.admins[i], &g.w); err != nil {
			return fail(fmt.Errorf("%s node %d users: %w", name, i, err))
		}
	}
	if n > 0 {
		for i, s := range g.nodes {
			if err := waitMembers(ctx, s.Base, n, time.Minute); err != nil {
				return fail(fmt.Errorf("%s node %d: %w", name, i, err))
			}
		}
	}
	logf("%s: %d node(s) ready after %v", name, len(g.nodes), time.Since(t).Round(time.Second))
	return g, nil
}

// waitMembers polls base's /health until its cluster lists n members.
func waitMembers(ctx context.Context, base string, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := -1
	for {
		var h struct {
			Cluster struct {
				Members []string `json:"members"`
			} `json:"cluster"`
		}
		if resp, err := http.Get(base + "/health"); err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			last = len(h.Cluster.Members)
			if last == n {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("/health lists %d cluster members, want %d", last, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clusterMessages sums alertd_cluster_messages_total by kind (observation,
// event, control) over the group's nodes.
func (g *group) clusterMessages(ctx context.Context) (out [3]float64) {
	kinds := map[string]int{"observation": 0, "event": 1, "control": 2}
	for _, s := range g.nodes {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.InternalAddr+"/metrics", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			const fam = `alertd_cluster_messages_total{kind="`
			if !strings.HasPrefix(line, fam) {
				continue
			}
			rest := line[len(fam):]
			q := strings.IndexByte(rest, '"')
			sp := strings.LastIndexByte(rest, ' ')
			if q < 0 || sp < 0 {
				continue
			}
			if k, ok := kinds[rest[:q]]; ok {
				v, _ := strconv.ParseFloat(rest[sp+1:], 64)
				out[k] += v
			}
		}
		resp.Body.Close()
	}
	return out
}

// runCluster is run for -cluster: groups instead of one server.
func runCluster(ctx context.Context, o *options) int {
	rep := &clusterReport{started: time.Now(), loadStart: loadAvg(), o: o}
	nofile, err := raiseNoFile()
	if err != nil {
		logf("raise RLIMIT_NOFILE: %v", err)
		return 1
	}
	w, err := newWorkload(o.handles, o.sessions, o.watchers, o.perAccount, 0)
	if err != nil {
		logf("%v", err)
		return 2
	}
	if need := o.sessions + 200; uint64(need) > nofile {
		logf("%d sockets need RLIMIT_NOFILE above %d", need, nofile)
		return 2
	}
	if o.databaseURL == "" {
		logf("-cluster needs -database-url (url=$(bash scripts/testpg.sh | tail -n 1))")
		return 2
	}
	tmp, bin, cleanup, err := workDir(ctx, o, "fanoutbench-cluster-")
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer cleanup()
	b := &bench{o: o, w: w, tmp: tmp}
	rep.w = w
	var groups []*group
	defer func() {
		for _, g := range groups {
			if err := g.stop(); err != nil {
				rep.notes = append(rep.notes, err.Error())
			}
		}
	}()
	if o.clusterCompare {
		g, err := b.startGroup(ctx, "plain", 0, bin)
		if err != nil {
			logf("%v", err)
			return 1
		}
		groups = append(groups, g)
	}
	g, err := b.startGroup(ctx, fmt.Sprintf("cluster of %d", o.cluster), o.cluster, bin)
	if err != nil {
		logf("%v", err)
		return 1
	}
	groups = append(groups, g)
	if err := b.clusterScenario(ctx, groups, rep); err != nil {
		logf("%v", err)
		for _, g := range groups {
			for i, s := range g.nodes {
				logf("%s node %d log tail:\n%s", g.name, i, s.LogTail(1500))
			}
		}
		return 1
	}
	for _, l := range b.loops {
		l.stop()
	}
	rep.finished = time.Now()
	rep.loadEnd = loadAvg()
	if err := rep.write(o.out); err != nil {
		logf("write report: %v", err)
		return 1
	}
	return 0
}

// clusterScenario connects the sessions and runs the base runs (groups in
// the order A B B A ... when there are two), then the sweep on the cluster.
func (b *bench) clusterScenario(ctx context.Context, groups []*group, rep *clusterReport) error {
	o := b.o
	runsPerGroup := o.baseRuns
	maxPosts := 10
	perRun := int(float64(o.baseRate)*(o.warmup+o.baseDuration).Seconds()) + 10
	maxPosts += len(groups) * (runsPerGroup + 1) * perRun
	for _, r := range o.rates {
		maxPosts += int(float64(r)*o.sweepDur.Seconds()) + 10
	}
	b.rec = newRecorder(maxPosts)
	fds := make([]atomic.Pointer[cconn], 1<<20)
	var at *group
	move := func(to *group) error {
		if at == to {
			return nil
		}
		if at != nil {
			for _, l := range b.loops {
				l.closeAll()
			}
			for _, s := range at.nodes {
				if err := waitWSAt(ctx, s.Base, 0, 30*time.Second); err != nil {
					return fmt.Errorf("%s after closing the sessions: %w", at.name, err)
				}
			}
		}
		for _, l := range b.loops {
			l.stop()
		}
		b.loops = nil
		for i := range o.loops {
			l, err := newLoop(b.rec, fds, uint32(i+1)*2654435761)
			if err != nil {
				return err
			}
			l.nap.Store(int64(o.clientNap))
			l.nodes = len(to.nodes)
			b.loops = append(b.loops, l)
			go l.run()
		}
		logf("logging %d sessions in to %s", o.sessions, to.name)
		t := time.Now()
		if err := b.connectSpread(ctx, o.sessions, to.addrs(), func(a int) string { return to.w.keys[a] }); err != nil {
			return fmt.Errorf("%s: %w", to.name, err)
		}
		rep.connectTime = time.Since(t)
		for i, s := range to.nodes {
			want := o.sessions / len(to.nodes)
			if i < o.sessions%len(to.nodes) {
				want++
			}
			if err := waitWSAt(ctx, s.Base, int64(want), 30*time.Second); err != nil {
				return fmt.Errorf("%s node %d: %w", to.name, i, err)
			}
		}
		at = to
		return nil
	}
	p := &poster{w: b.w, rec: b.rec, workers: o.senders, drain: o.drain}
	runOn := func(g *group, label string, rate int, d time.Duration) (*clusterRun, error) {
		if err := move(g); err != nil {
			return nil, err
		}
		p.loops, p.a, p.srv, p.ingestAt, p.sample = b.loops, g.admins[0], g.nodes[0], g.admins, g.sample
		m0 := g.clusterMessages(ctx)
		var c0 []procSample
		for _, s := range g.nodes {
			c0 = append(c0, s.Sample())
		}
		r, err := p.run(ctx, label, rate, d)
		if err != nil {
			return nil, err
		}
		c := &clusterRun{runResult: r, group: g.name, nodes: len(g.nodes)}
		m1 := g.clusterMessages(ctx)
		for k := range c.msgs {
			c.msgs[k] = m1[k] - m0[k]
		}
		for i, s := range g.nodes {
			c.nodeCPU = append(c.nodeCPU, s.Sample().CPU-c0[i].CPU)
		}
		logf("%s [%s]: %.2f observation + %.2f event + %.2f control messages between nodes per post", r.line(), g.name,
			c.perPost(0), c.perPost(1), c.perPost(2))
		return c, nil
	}
	order := func(i int) []*group {
		if len(groups) == 1 || i%2 == 0 {
			return groups
		}
		return []*group{groups[1], groups[0]}
	}
	warmed := map[*group]bool{}
	for i := range runsPerGroup {
		for _, g := range order(i) {
			if at != g && o.warmup > 0 {
				if _, err := runOn(g, g.name+" warm-up", o.baseRate, o.warmup); err != nil {
					return err
				}
				warmed[g] = true
				time.Sleep(time.Second)
			}
			r, err := runOn(g, fmt.Sprintf("%s base %d", g.name, i+1), o.baseRate, o.baseDuration)
			if err != nil {
				return err
			}
			rep.base = append(rep.base, r)
			time.Sleep(time.Second)
		}
	}
	cl := groups[len(groups)-1]
	for _, rate := range o.rates {
		r, err := runOn(cl, fmt.Sprintf("%s sweep %d/s", cl.name, rate), rate, o.sweepDur)
		if err != nil {
			return err
		}
		rep.sweep = append(rep.sweep, r)
		if !r.meets(o.p99Target) && !o.keepSweeping {
			break
		}
	}
	rep.stray = b.rec.stray.Load()
	for _, l := range b.loops {
		l.mu.Lock()
		rep.disconnects += l.disconnect
		rep.serverEnds += l.serverEnds
		if l.firstError != "" && rep.clientError == "" {
			rep.clientError = l.firstError
		}
		l.mu.Unlock()
	}
	return nil
}
