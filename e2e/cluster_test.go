package e2e

// End-to-end tests of a cluster (CONTRACT.md section 7): three alertd
// processes on loopback over one PostgreSQL database, spoken to over real
// HTTP and WebSockets.

import (
	"fmt"
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
// (membership) were both free.
func clusterAddrs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for len(out) < n {
		p := testkit.FreePort(t)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+1))
		if err != nil {
			continue
		}
		ln.Close()
		a := "127.0.0.1:" + strconv.Itoa(p)
		if !slices.Contains(out, a) {
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

// startNode runs `alertd serve` as node i of the cluster name over db, at
// addrs[i], waits for its /health and stops it (SIGTERM, exit 0) when the
// test ends.
func startNode(t *testing.T, db, admin, name string, addrs []string, i int) *server {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
	s := &server{base: "http://" + addr, admin: admin, log: &testkit.LogBuffer{}}
	cmd := exec.Command(nodeBinary(t), "serve", "--addr", addr, "--database-url", db, "--admin-token", admin,
		"--data-dir", t.TempDir(), "--cluster-name", name, "--cluster-addr", addrs[i],
		"--cluster-peers", strings.Join(addrs, ","), "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("node %d exited %d after SIGTERM; output:\n%s", i, code, testkit.Tail(s.log.String(), 4000))
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
	for deadline := time.Now().Add(time.Minute); ; {
		select {
		case <-exited:
			t.Fatalf("node %d exited: %v\n%s", i, cmd.ProcessState, testkit.Tail(s.log.String(), 4000))
		default:
		}
		if r, err := httpClient.Get(s.base + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %d: no 200 from /health within a minute", i)
		}
		time.Sleep(25 * time.Millisecond) // paces the wait for a process to come up
	}
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
// handle's grain lives on.
func TestE2EClusterDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	db := pgtest.URL(t)
	admin := "adm_e2e_" + testkit.RandomHex(16)
	name := "e2e-" + testkit.RandomHex(4)
	addrs := clusterAddrs(t, 3)

	a := startNode(t, db, admin, name, addrs, 0)
	handles := make([]string, 6) // several, so that grains land on every node
	for i := range handles {
		handles[i] = newHandle("cl")
	}
	// Keys and targets are read from the store when a node starts (their
	// changes do not cross nodes yet): issue them before B and C start.
	acct := a.newDT(t, "enterprise", nil, handles...)
	b := startNode(t, db, admin, name, addrs, 1)
	c := startNode(t, db, admin, name, addrs, 2)
	for _, s := range []*server{a, b, c} {
		s.waitMembers(t, name, addrs)
	}
	wb, _ := b.rtLogin(t, acct.key)
	wc, _ := c.rtLogin(t, acct.key)
	clients := map[string]*wsClient{"B": wb, "C": wc}

	// A node subscribes to a handle's grain once its first session listens
	// (asynchronously): probe every handle until both sessions hear it.
	probed := map[string]map[string]bool{"B": {}, "C": {}}
	probes := map[string]bool{}
	for deadline := time.Now().Add(syncWait); len(probed["B"]) < len(handles) || len(probed["C"]) < len(handles); {
		if time.Now().After(deadline) {
			t.Fatalf("probes heard: B %v, C %v of %v", probed["B"], probed["C"], handles)
		}
		for _, h := range handles {
			if !probed["B"][h] || !probed["C"][h] {
				p := postObs(h, "post", "probe")
				probes[p["id"].(string)] = true
				a.send(t, p)
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
				e := decodeEvent(t, f.Data)
				probed[n][e.handle(t)] = true
			}
		}
	}

	// The posts, then a fence per handle: a handle's events arrive in
	// order, so once a session has its fence it has all it will get before.
	const perHandle = 5
	want := map[string][]string{}
	for i := range perHandle + 1 {
		for _, h := range handles {
			text := fmt.Sprintf("post %d", i)
			if i == perHandle {
				text = "fence"
			}
			p := postObs(h, "post", text)
			want[h] = append(want[h], p["id"].(string))
			a.send(t, p)
		}
	}
	for n, w := range clients {
		got := map[string][]string{}
		fenced := 0
		for fenced < len(handles) {
			e := decodeEvent(t, w.Next(t))
			id := e.data(t).str(t, "id")
			if probes[id] {
				continue // a probe sent while the other session waited
			}
			h := e.handle(t)
			got[h] = append(got[h], id)
			if id == want[h][perHandle] {
				fenced++
			}
		}
		for _, h := range handles {
			if !slices.Equal(got[h], want[h]) {
				t.Errorf("session on %s, handle %s: post ids %v, want once each in order %v", n, h, got[h], want[h])
			}
		}
	}
}
