package e2e

// End-to-end tests of a cluster (CONTRACT.md section 7): three alertd
// processes on loopback over one PostgreSQL database, spoken to over real
// HTTP and WebSockets.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/pgtest"
)

// clusterAddrs are n --cluster-addr on loopback whose port and port + 1
// (membership) were both free. The ports are below Linux's ephemeral range,
// where the outgoing connections of the other tests cannot take them
// between this check and the node's listen.
func clusterAddrs(t *testing.T, n int) []string {
	t.Helper()
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
		if a := "127.0.0.1:" + strconv.Itoa(p); free && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// The nodes are processes of a binary built without -race: protoactor's
// cluster at the pinned version races with itself (remote's BlockList,
// gossip state, the disthash manager, grpc's logger), so a -race build
// of a cluster node always reports races that are not alertd's.
var (
	nodeBuildOnce sync.Once
	nodeBin       string
	nodeBuildErr  error
)

// nodeBinary builds alertd once per test process.
func nodeBinary(t *testing.T) string {
	t.Helper()
	nodeBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "alertd-cluster-")
		if err != nil {
			nodeBuildErr = err
			return
		}
		nodeBin = filepath.Join(dir, "alertd")
		out, err := exec.Command("go", "build", "-o", nodeBin, "github.com/alertd/alertd/cmd/alertd").CombinedOutput()
		if err != nil {
			nodeBuildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if nodeBuildErr != nil {
		t.Fatalf("building alertd: %v", nodeBuildErr)
	}
	return nodeBin
}

// removeNodeBinary deletes the folder of the binary nodeBinary built (a
// 55 MB file per test process otherwise left in the temp dir).
func removeNodeBinary() {
	if nodeBin != "" {
		_ = os.RemoveAll(filepath.Dir(nodeBin))
	}
}

// startNode runs `alertd serve` as node i of the cluster name over db, at
// addrs[i] (with the flags extra), waits for its /health and stops it
// (SIGTERM, exit 0) when the test ends.
func startNode(t *testing.T, db, admin, name string, addrs []string, i int, extra ...string) *server {
	t.Helper()
	s := launchNode(t, db, admin, name, addrs, i, extra...)
	waitUp(t, s, i)
	return s
}

// launchNode is startNode without the wait for /health.
func launchNode(t *testing.T, db, admin, name string, addrs []string, i int, extra ...string) *server {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
	s := &server{base: "http://" + addr, admin: admin, log: &testkit.LogBuffer{}, clusterAddr: addrs[i]}
	args := append([]string{"serve", "--addr", addr, "--database-url", db, "--admin-token", admin,
		"--data-dir", t.TempDir(), "--cluster-name", name, "--cluster-addr", addrs[i],
		"--cluster-peers", strings.Join(addrs, ","), "--log-level", "warn", "--webhook-allow-cidrs", "127.0.0.0/8"}, extra...)
	cmd := exec.Command(nodeBinary(t), args...)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	proc := &nodeProc{cmd: cmd, exited: exited}
	nodeProcs.Store(s, proc)
	t.Cleanup(func() {
		if proc.killed.Load() {
			return // SIGKILLed by the test (killNode)
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		stopAt := time.Now()
		defer func() { t.Logf("node %d exited %v after SIGTERM", i, time.Since(stopAt)) }()
		select {
		case <-exited:
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("node %d exited %d after SIGTERM; output:\n%s", i, code, testkit.Tail(s.log.String(), 4000))
			}
			for _, line := range strings.Split(strings.TrimSpace(s.log.String()), "\n") {
				if line != "" && !json.Valid([]byte(line)) { // CONTRACT.md section 1, protoactor's logs included
					t.Errorf("node %d wrote a line that is not a JSON log line: %q", i, line)
				}
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("node %d did not exit within 20 s of SIGTERM", i)
		}
		if t.Failed() {
			t.Logf("node %d output (tail):\n%s", i, testkit.Tail(s.log.String(), 4000))
		}
	})
	return s
}

// waitUp waits until node i's /health answers 200.
func waitUp(t *testing.T, s *server, i int) {
	t.Helper()
	v, _ := nodeProcs.Load(s)
	p := v.(*nodeProc)
	for deadline := time.Now().Add(time.Minute); ; {
		select {
		case <-p.exited:
			t.Fatalf("node %d exited: %v\n%s", i, p.cmd.ProcessState, testkit.Tail(s.log.String(), 4000))
		default:
		}
		if r, err := httpClient.Get(s.base + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %d: no 200 from /health within a minute", i)
		}
		time.Sleep(25 * time.Millisecond) // paces the wait for a process to come up
	}
}

// startCluster starts n nodes of a new cluster over a fresh database, all
// at once, and waits until each lists every member.
func startCluster(t *testing.T, n int) (nodes []*server) {
	t.Helper()
	c := newCluster(t, n)
	for i := range n {
		nodes = append(nodes, c.start(t, i))
	}
	for _, s := range nodes {
		s.waitMembers(t, c.name, c.addrs)
	}
	return nodes
}

// clusterPlan is what the nodes of one test's cluster share: the database, the
// admin token, the cluster's name and every member's --cluster-addr.
type clusterPlan struct {
	db, admin, name string
	addrs           []string
	args            []string // more flags of every node (the chat bot's)
}

// newCluster makes a cluster of n nodes, none started yet.
func newCluster(t *testing.T, n int) clusterPlan {
	t.Helper()
	return clusterPlan{db: pgtest.Migrated(t), admin: "adm_e2e_" + testkit.RandomHex(16),
		name: "e2e-" + testkit.RandomHex(4), addrs: clusterAddrs(t, n)}
}

// start starts node i and waits until it answers (startNode).
func (c clusterPlan) start(t *testing.T, i int) *server {
	t.Helper()
	return startNode(t, c.db, c.admin, c.name, c.addrs, i, c.args...)
}

// deliveryCluster is a cluster of three ready for delivery tests (startForDelivery).
type deliveryCluster struct {
	a, b, c *server
	handles []string
	clients map[string]*wsClient // "A", "B", "C": a realtime session on each node
	probes  map[string]bool      // the probes' post ids (probeUntilHeard)
}

// startForDelivery starts node A; issues one enterprise account tracking six
// handles (several, so that grains land on every node) before B and C start,
// so that the test is about delivery alone (TestE2EClusterTargets covers the
// targets' change feed); starts B and C, waits until every node lists all
// three, opens a realtime session on each and probes every handle until
// each session hears it.
func (c clusterPlan) startForDelivery(t *testing.T, prefix string) deliveryCluster {
	t.Helper()
	d := deliveryCluster{a: c.start(t, 0), handles: make([]string, 6)}
	for i := range d.handles {
		d.handles[i] = newHandle(prefix)
	}
	acct := d.a.newDT(t, "enterprise", nil, d.handles...)
	d.b, d.c = c.start(t, 1), c.start(t, 2)
	nodes := []*server{d.a, d.b, d.c}
	d.clients = map[string]*wsClient{}
	for _, s := range nodes {
		s.waitMembers(t, c.name, c.addrs)
	}
	for i, s := range nodes {
		d.clients[string(rune('A'+i))], _ = s.rtLogin(t, acct.key)
	}
	d.probes = probeUntilHeard(t, d.a, d.handles, d.clients)
	return d
}

// waitMembers waits until the node's /health lists every member.
func (s *server) waitMembers(t *testing.T, name string, want []string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	var last string
	for deadline := time.Now().Add(syncWait); time.Now().Before(deadline); {
		r := s.do(t, "GET", "/health", nil, nil)
		if r.status != 200 {
			t.Fatalf("%s", r)
		}
		d := decodeObj(t, r.body, "/health")
		d.wantKeys(t, "/health", "status", "db", "listeners", "ws_connections", "store_bytes", "cluster")
		c := d.object(t, "cluster")
		c.wantKeys(t, "/health cluster", "name", "members")
		if got := c.strings(t, "members"); c.str(t, "name") == name && slices.Equal(got, want) {
			return
		}
		last = string(d["cluster"])
		time.Sleep(50 * time.Millisecond) // polling a condition, not proving an absence
	}
	t.Fatalf("%s: cluster members %s, want %q", s.base, last, want)
}

// TestE2EClusterDelivery: posts ingested on node A reach the sessions on
// nodes B and C once each, in order per handle, whichever node each
// handle's grain lives on; posts of one handle ingested on A, B and C in
// turn reach every session once, in one order per handle on every node.
func TestE2EClusterDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	d := newCluster(t, 3).startForDelivery(t, "cl")
	a, b, c, handles, clients, probes := d.a, d.b, d.c, d.handles, d.clients, d.probes
	// The posts, then a fence per handle: a handle's events arrive in
	// order, so once a session has its fence it has all it will get before.
	want := map[string][]string{}
	sendPosts(t, a, handles, 5, want)
	sendPosts(t, a, handles, 1, want) // the fence
	for n, w := range clients {
		expectOnceInOrder(t, n, w, handles, want, probes)
	}

	// A profile change ingested on A (its user actor lives there) goes
	// through the handle's grain to every node.
	for _, h := range handles {
		u := userMap(newUserID(), h)
		a.send(t, u) // the baseline: no events
		v := maps.Clone(u)
		v["name"] = "Renamed " + h
		a.send(t, v)
	}
	fence := map[string][]string{}
	sendPosts(t, a, handles, 1, fence)
	for n, w := range clients {
		updates := map[string]int{}
		for fenced := 0; fenced < len(handles); {
			e := decodeEvent(t, w.Next(t))
			switch h := e.handle(t); e.name {
			case "social.profile.update":
				updates[h]++
			case "social.post.new":
				if id := e.data(t).str(t, "id"); id == fence[h][0] {
					fenced++
				} else if !probes[id] {
					t.Errorf("session on %s: unexpected post %s", n, e)
				}
			default:
				t.Errorf("session on %s: unexpected event %s", n, e)
			}
		}
		for _, h := range handles {
			if updates[h] != 2 { // name and display_name
				t.Errorf("session on %s, handle %s: %d profile updates, want 2", n, h, updates[h])
			}
		}
	}

	// Per-handle order across nodes: posts of every handle ingested on A,
	// B and C in turn. Each node's posts keep that node's order, and the
	// handle's grain puts them in one order that every session, on every
	// node, sees.
	nodes := map[string]*server{"A": a, "B": b, "C": c}
	from := map[string]string{} // post id → the node that ingested it
	sent := map[string]int{}    // posts per handle
	for round := range 3 {
		for _, n := range []string{"A", "B", "C"} {
			for _, h := range handles {
				p := postObs(h, "post", fmt.Sprintf("round %d from %s", round, n))
				from[p["id"].(string)] = n
				sent[h]++
				nodes[n].send(t, p)
			}
		}
	}
	var first map[string][]string
	for n, w := range clients {
		got := map[string][]string{}
		for have := 0; have < len(from); have++ {
			e := decodeEvent(t, w.Next(t))
			id := e.data(t).str(t, "id")
			if from[id] == "" {
				t.Fatalf("session on %s: unexpected post %s", n, e)
			}
			h := e.handle(t)
			got[h] = append(got[h], id)
		}
		for _, h := range handles {
			if len(got[h]) != sent[h] || len(slices.Compact(slices.Sorted(slices.Values(got[h])))) != sent[h] {
				t.Errorf("session on %s, handle %s: posts %v, want %d once each", n, h, got[h], sent[h])
			}
			for _, src := range []string{"A", "B", "C"} { // each node's own order
				var of []string
				for _, id := range got[h] {
					if from[id] == src {
						of = append(of, id)
					}
				}
				if !slices.IsSorted(of) { // newTweetID: increasing, of one width
					t.Errorf("session on %s, handle %s: posts from %s out of their ingest order: %v", n, h, src, of)
				}
			}
		}
		if first == nil {
			first = got
		} else if !maps.EqualFunc(first, got, slices.Equal) {
			t.Errorf("sessions on two nodes saw different orders:\n%v\n%v", first, got)
		}
	}
	// No duplicate came after: a fence from A, the first post each session
	// reads next.
	fence = map[string][]string{}
	sendPosts(t, a, handles, 1, fence)
	for n, w := range clients {
		expectOnceInOrder(t, n, w, handles, fence, probes)
	}
}

// sendPosts ingests n posts of every handle on s, noting their ids in want.
func sendPosts(t *testing.T, s *server, handles []string, n int, want map[string][]string) {
	t.Helper()
	for i := range n {
		for _, h := range handles {
			p := postObs(h, "post", fmt.Sprintf("post %d", len(want[h])+i))
			want[h] = append(want[h], p["id"].(string))
			s.send(t, p)
		}
	}
}

// expectOnceInOrder reads w's events up to the last post of every handle
// in want (a handle's events arrive in order, so the last one is a fence:
// nothing sent before it can come after) and asserts that each post came
// once, in order. Probes are skipped.
func expectOnceInOrder(t *testing.T, name string, w *wsClient, handles []string, want map[string][]string, probes map[string]bool) {
	t.Helper()
	got := map[string][]string{}
	fenced := 0
	for fenced < len(handles) {
		e := decodeEvent(t, w.Next(t))
		id := e.data(t).str(t, "id")
		if probes[id] {
			continue // a probe sent while another session waited
		}
		h := e.handle(t)
		got[h] = append(got[h], id)
		if id == want[h][len(want[h])-1] {
			fenced++
		}
	}
	for _, h := range handles {
		if !slices.Equal(got[h], want[h]) {
			t.Errorf("session on %s, handle %s: post ids %v, want once each in order %v", name, h, got[h], want[h])
		}
	}
}

// probeUntilHeard ingests a probe post of every handle on s until every
// client has heard one of each: a node subscribes to a handle's grain
// asynchronously once its first session listens. It returns the probes'
// post ids.
func probeUntilHeard(t *testing.T, s *server, handles []string, clients map[string]*wsClient) map[string]bool {
	t.Helper()
	probes := map[string]bool{}
	heard := map[string]map[string]bool{}
	for n := range clients {
		heard[n] = map[string]bool{}
	}
	all := func() bool {
		for n := range clients {
			if len(heard[n]) < len(handles) {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(syncWait); !all(); {
		if time.Now().After(deadline) {
			t.Fatalf("probes heard %v of %v", heard, handles)
		}
		for _, h := range handles {
			missing := false
			for n := range clients {
				missing = missing || !heard[n][h]
			}
			if missing {
				p := postObs(h, "post", "probe")
				probes[p["id"].(string)] = true
				s.send(t, p)
			}
		}
		for n, w := range clients {
			for {
				f, ok := w.Read(300 * time.Millisecond)
				if !ok {
					break
				}
				if f.Err != nil {
					t.Fatalf("%s: socket ended: %v", n, f.Err)
				}
				heard[n][decodeEvent(t, f.Data).handle(t)] = true
			}
		}
	}
	return probes
}

// TestE2EClusterJoin: a node that joins while a stream of posts is
// ingested takes its share of the grains (they move, and reload from the
// store), and the sessions on the other nodes still get every post once,
// in order; then posts ingested on B reach them through grains on C too.
func TestE2EClusterJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	cl := newCluster(t, 3)

	a := cl.start(t, 0)
	handles := make([]string, 8)
	for i := range handles {
		handles[i] = newHandle("cj")
	}
	acct := a.newDT(t, "enterprise", nil, handles...)
	b := cl.start(t, 1)
	for _, s := range []*server{a, b} {
		s.waitMembers(t, cl.name, cl.addrs[:2])
	}
	wa, _ := a.rtLogin(t, acct.key)
	wb, _ := b.rtLogin(t, acct.key)
	clients := map[string]*wsClient{"A": wa, "B": wb}
	probes := probeUntilHeard(t, a, handles, clients)

	// The stream: a round of posts (one per handle) at a time from before
	// C starts until every member has listed C for three rounds.
	want := map[string][]string{}
	sendPosts(t, a, handles, 1, want)
	c := launchNode(t, cl.db, cl.admin, cl.name, cl.addrs, 2)
	for after, deadline := 0, time.Now().Add(time.Minute); after < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("the members did not all list C within a minute")
		}
		sendPosts(t, a, handles, 1, want)
		if after > 0 || (listsMembers(a, 3) && listsMembers(b, 3) && listsMembers(c, 3)) {
			after++
		}
	}
	t.Logf("%d posts per handle through the join", len(want[handles[0]]))
	for n, w := range clients {
		expectOnceInOrder(t, n, w, handles, want, probes)
	}
	fromB := map[string][]string{}
	sendPosts(t, b, handles, 2, fromB) // with grains on C
	for n, w := range clients {
		expectOnceInOrder(t, n, w, handles, fromB, probes)
	}
}

// listsMembers reports whether s's /health answers 200 and lists n
// cluster members (no failure while a node comes up).
func listsMembers(s *server, n int) bool {
	r, err := httpClient.Get(s.base + "/health")
	if err != nil {
		return false
	}
	defer r.Body.Close()
	var h struct {
		Cluster struct {
			Members []string `json:"members"`
		} `json:"cluster"`
	}
	return r.StatusCode == 200 && json.NewDecoder(r.Body).Decode(&h) == nil && len(h.Cluster.Members) == n
}

// TestE2EClusterAccounts: a key issued, a plan changed and a key revoked on
// one node take effect on another (PostgreSQL LISTEN/NOTIFY), an account's
// sockets on one count toward its limit on the other, and an address
// blocked for failed logins on one is blocked on the other. How long each
// took is logged, not asserted (CONTRACT.md section 7 promises 5 s).
func TestE2EClusterAccounts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	nodes := startCluster(t, 2)
	a, b := nodes[0], nodes[1]
	status := func(key string) resp { return b.do(t, "GET", "/v1/dt/status", bearer(key), nil) }
	until := func(what string, ok func() bool) {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > syncWait {
				t.Fatalf("%s: not seen on the other node within %v", what, syncWait)
			}
			time.Sleep(20 * time.Millisecond) // polling a condition, not proving an absence
		}
		t.Logf("%s reached the other node in %v", what, time.Since(start).Round(time.Millisecond))
	}

	acct := a.newDT(t, "enterprise", nil)
	until("a new key", func() bool { return status(acct.key).status == 200 })
	a.adminDo(t, "PATCH", "/admin/v1/accounts/"+acct.account+"/products/dt", map[string]any{"max_handles": 321}).wantOK(t, 200)
	until("a plan change", func() bool {
		r := status(acct.key)
		return r.status == 200 && decodeObj(t, r.body, "status").object(t, "data").num(t, "max_handles") == 321
	})
	a.adminDo(t, "DELETE", "/admin/v1/keys/"+acct.key, nil).wantOK(t, 200)
	until("a revocation", func() bool { return status(acct.key).status == 401 })
	status(acct.key).wantErr(t, 401, "key_deactivated")

	// Sockets count on every node: five B2B sockets of an account on A, and
	// B refuses a sixth; one closed on A, B takes it, and A refuses then.
	conn := a.newDT(t, "pro", nil)
	until("a key for the socket limit", func() bool { return status(conn.key).status == 200 })
	tweetOnly := func(s *server) (*wsClient, string) {
		w, r, err := dialFrom(t, s.wsURL("/v1/dt/ws?api_key="+conn.key), "")
		if err == nil {
			return w, ""
		}
		if r == nil {
			t.Fatalf("dial %s: %v", s.base, err)
		}
		if body := testkit.ResponseText(r); r.StatusCode != 429 || !strings.Contains(body, "too many connections") {
			t.Fatalf("dial %s: %d %s, want 429 too many connections", s.base, r.StatusCode, body)
		}
		return nil, "refused"
	}
	var onA []*wsClient
	for range 5 {
		w, refused := tweetOnly(a)
		if w == nil {
			t.Fatalf("A refused a socket under the limit: %s", refused)
		}
		onA = append(onA, w)
	}
	refusedBy := func(s *server) func() bool {
		return func() bool {
			w, _ := tweetOnly(s)
			if w != nil {
				w.Close() // not heard yet: give it back
				return false
			}
			return true
		}
	}
	until("five sockets on A counted on B", refusedBy(b))
	onA[0].Close()
	var onB *wsClient
	until("a socket closed on A free on B", func() bool {
		onB, _ = tweetOnly(b)
		return onB != nil
	})
	until("the socket on B counted on A", refusedBy(a))
	onB.Close()

	// Failed logins count on every node: five on A block the address on B
	// too, even with a good key.
	good := a.newDT(t, "pro", nil)
	until("a key for the block check", func() bool { return status(good.key).status == 200 })
	ip := testkit.FreshIP()
	for range 5 {
		w := a.rtDial(t, ip)
		w.SendText(t, loginJSON(t, "dt_"+testkit.RandomHex(20)))
		w.disconnect(t, "key_unknown")
	}
	until("an address blocked on A refused by B", func() bool {
		w, r, err := dialFrom(t, b.wsURL("/v1/dt/ws?api_key="+good.key), ip)
		if err == nil {
			w.Close()
			return false
		}
		return r != nil && r.StatusCode == 429
	})
	_, r, err := dialFrom(t, b.wsURL("/v1/dt/ws?api_key="+good.key), ip)
	if err == nil || r == nil {
		t.Fatalf("B upgraded a socket from the address blocked on A")
	}
	wantIPBlocked429(t, r)
}

// TestE2EClusterTargets: a B2B target added on node A reaches a session on
// node B (it receives the handle's next posts), a removal on node C stops
// them, and adding it again on C brings them back; a Tweet Alerts list
// follows too (the registries' change feed, PostgreSQL LISTEN/NOTIFY). How long each took is logged,
// not asserted (the issue asks for 5 s).
func TestE2EClusterTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	nodes := startCluster(t, 3)
	a, b, c := nodes[0], nodes[1], nodes[2]
	until := func(what string, ok func() bool) {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > syncWait {
				t.Fatalf("%s: not seen within %v", what, syncWait)
			}
			time.Sleep(20 * time.Millisecond) // polling a condition, not proving an absence
		}
		t.Logf("%s in %v", what, time.Since(start).Round(time.Millisecond))
	}
	lists := func(s *server, key, h string) bool {
		r := s.do(t, "GET", "/v1/dt/targets", bearer(key), nil)
		return r.status == 200 && strings.Contains(string(r.body), `"`+h+`"`)
	}

	h := newHandle("tg")
	ref := a.newDT(t, "enterprise", nil, h) // watches h throughout: the barrier
	acct := a.newDT(t, "enterprise", nil)
	until("keys issued on A known on B", func() bool {
		return b.do(t, "GET", "/v1/dt/status", bearer(acct.key), nil).status == 200 &&
			b.do(t, "GET", "/v1/dt/status", bearer(ref.key), nil).status == 200
	})
	wref, _ := b.rtLogin(t, ref.key)
	w, ready := b.rtLogin(t, acct.key)
	if n := ready.num(t, "handles"); n != 0 {
		t.Fatalf("READY on B: %v handles, want 0", n)
	}

	start := time.Now()
	a.addTarget(t, acct.key, h)
	probes := probeUntilHeard(t, a, []string{h}, map[string]*wsClient{"B": w, "B (reference)": wref})
	t.Logf("a target added on A: its posts reach the session on B after %v", time.Since(start).Round(time.Millisecond))

	until("the target on C's list", func() bool { return lists(c, acct.key, h) })
	c.removeTarget(t, acct.key, h)
	until("the removal on C reached B's list", func() bool { return !lists(b, acct.key, h) })
	gone := postObs(h, "post", "after the removal")
	a.send(t, gone)
	// Barrier: the reference session on B has the post, so B's relay handed
	// it to B's sessions; a session still subscribed would have it queued.
	for {
		id := decodeEvent(t, wref.Next(t)).data(t).str(t, "id")
		if id == gone["id"].(string) {
			break
		}
		if !probes[id] {
			t.Fatalf("reference session on B: unexpected post %s", id)
		}
	}

	// Again on C: the first post the session gets after the probes is one
	// made after that.
	c.addTarget(t, acct.key, h)
	start = time.Now()
	again := map[string]bool{}
	for heard := false; !heard; {
		if time.Since(start) > syncWait {
			t.Fatalf("the target added again on C: no post of it on B within %v", syncWait)
		}
		p := postObs(h, "post", "watched again")
		again[p["id"].(string)] = true
		a.send(t, p)
		for {
			f, ok := w.Read(300 * time.Millisecond)
			if !ok {
				break
			}
			if f.Err != nil {
				t.Fatalf("session on B ended: %v", f.Err)
			}
			switch id := decodeEvent(t, f.Data).data(t).str(t, "id"); {
			case id == gone["id"].(string):
				t.Fatalf("session on B got the post made while %s was off its list", h)
			case again[id]:
				heard = true
			case !probes[id]:
				t.Fatalf("session on B: unexpected post %s", id)
			}
		}
	}
	t.Logf("a target added again on C: its posts reach the session on B after %v", time.Since(start).Round(time.Millisecond))

	// Tweet Alerts: a handle tracked on A is on B's copy of the list, and
	// untracked on C it leaves it.
	xg := a.xgKey(t, "pro")
	u := newUser("cx")
	wantIngest(t, a.ingest(t, "application/x-ndjson", u.line(t)), 1)
	tracked := func(s *server) bool {
		r := s.do(t, "GET", "/v1/accounts", bearer(xg.key), nil)
		return r.status == 200 && strings.Contains(string(r.body), `"`+u.Handle+`"`)
	}
	// Only a user A's directory knows may be tracked there: again until it is.
	until("a Tweet Alerts handle tracked on A", func() bool {
		b, _ := json.Marshal(map[string]any{"handles": []string{u.Handle}})
		return a.do(t, "POST", "/v1/accounts", xgJsonHdr(xg.key), b).status == 201 && tracked(a)
	})
	until("a Tweet Alerts handle tracked on A on B's list", func() bool { return tracked(b) })
	until("and on C's", func() bool { return tracked(c) })
	c.do(t, "DELETE", "/v1/accounts/"+u.Handle, bearer(xg.key), nil).wantOK(t, 200)
	until("untracked on C, off B's list", func() bool { return !tracked(b) })
}
