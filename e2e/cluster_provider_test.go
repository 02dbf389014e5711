package e2e

// End-to-end tests of the cluster providers other than automanaged: a real
// etcd (Debian's etcd-server, /usr/bin/etcd; `make test` installs it through
// scripts/testetcd.sh) on a free port, and an etcd that is not there.

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/pgtest"
)

// etcdBinary is the etcd the tests start: ALERTD_TEST_ETCD, else etcd on
// PATH, else /usr/bin/etcd. Absent, the test fails (it skips under -short,
// which runs no end-to-end test anyway).
func etcdBinary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("ALERTD_TEST_ETCD"); b != "" {
		return b
	}
	if b, err := exec.LookPath("etcd"); err == nil {
		return b
	}
	if _, err := os.Stat("/usr/bin/etcd"); err == nil {
		return "/usr/bin/etcd"
	}
	if testing.Short() {
		t.Skip("-short: no etcd (install Debian's etcd-server: bash scripts/testetcd.sh)")
	}
	t.Fatal("no etcd binary: install Debian's etcd-server (bash scripts/testetcd.sh) or set ALERTD_TEST_ETCD")
	return ""
}

// startEtcd runs a one-member etcd with its data in a temporary folder and
// returns its client endpoint (host:port) and a func that SIGKILLs it
// (also run when the test ends, after the nodes' cleanups).
func startEtcd(t *testing.T) (endpoint string, kill func()) {
	t.Helper()
	bin := etcdBinary(t)
	client := "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
	peer := "http://127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
	log := &testkit.LogBuffer{}
	cmd := exec.Command(bin, "--name", "e2e", "--data-dir", t.TempDir(),
		"--listen-client-urls", "http://"+client, "--advertise-client-urls", "http://"+client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "e2e="+peer)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	kill = func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	t.Cleanup(kill)
	for deadline := time.Now().Add(30 * time.Second); ; {
		select {
		case <-exited:
			t.Fatalf("etcd exited: %v\n%s", cmd.ProcessState, testkit.Tail(log.String(), 3000))
		default:
		}
		if r, err := httpClient.Get("http://" + client + "/health"); err == nil {
			var b bytes.Buffer
			_, _ = b.ReadFrom(r.Body)
			r.Body.Close()
			if r.StatusCode == 200 && strings.Contains(b.String(), `"health":"true"`) {
				return client, kill
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd not healthy within 30 s:\n%s", testkit.Tail(log.String(), 3000))
		}
		time.Sleep(50 * time.Millisecond) // paces the wait for a process to come up
	}
}

// sigtermNode SIGTERMs a node startNode started (its cleanup then does
// nothing); the func returned waits for its exit 0.
func sigtermNode(t *testing.T, s *server) (exited func()) {
	t.Helper()
	v, _ := nodeProcs.Load(s)
	p := v.(*nodeProc)
	p.killed.Store(true)
	at := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	return func() {
		t.Helper()
		select {
		case <-p.exited:
			t.Logf("%s exited %v after SIGTERM", s.base, time.Since(at))
			if code := p.cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("%s exited %d after SIGTERM:\n%s", s.base, code, testkit.Tail(s.log.String(), 4000))
			}
		case <-time.After(20 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
			t.Fatalf("%s did not exit within 20 s of SIGTERM:\n%s", s.base, testkit.Tail(s.log.String(), 4000))
		}
	}
}

// TestE2EClusterEtcd: three nodes find each other through etcd
// (--cluster-provider etcd, --cluster-peers naming etcd's endpoint): every
// /health lists the three, posts ingested on A reach the sessions on every
// node once and in order; C leaves on SIGTERM while A ingests
// (deregistered: the others drop it at once) and the sessions on A and B
// get every post once and in order through the move; with etcd gone,
// A and B still stop on SIGTERM within the shutdown budget (the launch's
// cleanup checks exit 0 within 20 s).
func TestE2EClusterEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	endpoint, killEtcd := startEtcd(t)
	cl := newCluster(t, 3)
	// After the automanaged --cluster-peers every node is given: a flag
	// given twice takes its last value.
	cl.args = []string{"--cluster-provider", "etcd", "--cluster-peers", endpoint}
	d := cl.startForDelivery(t, "ce")
	a, b, c, handles, clients, probes := d.a, d.b, d.c, d.handles, d.clients, d.probes
	want := map[string][]string{}
	sendPosts(t, a, handles, 3, want)
	for n, w := range clients {
		expectOnceInOrder(t, n, w, handles, want, probes)
	}

	// C leaves while A ingests: its grains move to A and B, and the
	// sessions there miss nothing (C's own session closes with C).
	delete(clients, "C")
	through := map[string][]string{}
	sendPosts(t, a, handles, 1, through)
	leave := time.Now()
	exited := sigtermNode(t, c)
	for after, deadline := 0, time.Now().Add(time.Minute); after < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("A and B did not both drop C within a minute")
		}
		sendPosts(t, a, handles, 1, through)
		if after > 0 || (listsMembers(a, 2) && listsMembers(b, 2)) {
			after++
		}
	}
	t.Logf("A and B listed C no more %v after its SIGTERM; %d posts per handle through the leave", time.Since(leave), len(through[handles[0]]))
	exited()
	for n, w := range clients {
		expectOnceInOrder(t, n, w, handles, through, probes)
	}
	for _, s := range []*server{a, b} {
		s.waitMembers(t, cl.name, cl.addrs[:2])
	}
	killEtcd()
}

// TestE2EClusterEtcdUnreachable: a node pointed at an etcd that does not
// answer exits non-zero at once with a line naming etcd and the endpoint
// (it neither hangs its start nor needs a SIGTERM).
func TestE2EClusterEtcdUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	addr := clusterAddrs(t, 1)[0]
	bin, db := nodeBinary(t), pgtest.Migrated(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--database-url", db,
		"--admin-token", "adm_e2e_x", "--data-dir", t.TempDir(), "--log-level", "warn",
		"--cluster-name", "e2e-"+testkit.RandomHex(4), "--cluster-addr", addr,
		"--cluster-provider", "etcd", "--cluster-peers", dead)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	t.Logf("exited %v after it started", time.Since(start))
	if ctx.Err() != nil {
		t.Fatalf("still running after 30 s:\n%s", testkit.Tail(out.String(), 3000))
	}
	if err == nil || cmd.ProcessState.ExitCode() <= 0 {
		t.Fatalf("exit status %v, want a non-zero exit:\n%s", cmd.ProcessState, testkit.Tail(out.String(), 3000))
	}
	if last := lastLine(out.String()); !strings.Contains(last, "etcd at "+dead+" unreachable") {
		t.Errorf("the reason does not name etcd and %s: %q", dead, last)
	}
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
