package e2e

import (
	"maps"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
)

// nodeProc is the process of a cluster node startNode started.
type nodeProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	killed atomic.Bool // its cleanup then skips the SIGTERM and exit checks
}

var nodeProcs sync.Map // *server → *nodeProc

// killNode SIGKILLs a node startNode started and waits until it is gone.
func killNode(t *testing.T, s *server) {
	t.Helper()
	v, ok := nodeProcs.Load(s)
	if !ok {
		t.Fatalf("%s is not a node process", s.base)
	}
	p := v.(*nodeProc)
	p.killed.Store(true)
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL %s: %v", s.base, err)
	}
	<-p.exited
}

// TestE2EClusterKill: after a SIGKILL of node C, the survivors list each
// other only, the sessions on B still get every post once and in order
// (the handles' grains that lived on C come back on A or B and reload from
// the store), and C's client logs in on A and gets them too.
func TestE2EClusterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	cl := newCluster(t, 3)

	a := cl.start(t, 0)
	handles := make([]string, 9) // several, so that some grains live on C (all on A or B: 1 in 38)
	for i := range handles {
		handles[i] = newHandle("ck")
	}
	acct := a.newDT(t, "enterprise", nil, handles...)
	b := cl.start(t, 1)
	c := cl.start(t, 2)
	for _, s := range []*server{a, b, c} {
		s.waitMembers(t, cl.name, cl.addrs)
	}
	wb, _ := b.rtLogin(t, acct.key)
	wc, _ := c.rtLogin(t, acct.key)
	probes := probeUntilHeard(t, a, handles, map[string]*wsClient{"B": wb, "C": wc})

	killNode(t, c)
	wc.Close()
	for _, s := range []*server{a, b} {
		s.waitMembers(t, cl.name, cl.addrs[:2])
	}
	wa, _ := a.rtLogin(t, acct.key) // C's client, elsewhere
	clients := map[string]*wsClient{"A (C's client)": wa, "B": wb}
	maps.Copy(probes, probeUntilHeard(t, b, handles, clients)) // ingested on a survivor too

	want := map[string][]string{}
	sendPosts(t, a, handles, 3, want)
	sendPosts(t, a, handles, 1, want) // the fence
	for n, w := range clients {
		expectOnceInOrder(t, n, w, handles, want, probes)
	}
}
