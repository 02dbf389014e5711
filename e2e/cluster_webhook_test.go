package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/engine/cluster"
	"github.com/alertd/alertd/internal/testkit"
)

// TestE2EClusterWebhooks: with three nodes live, each webhook delivery is
// sent once, by the node that owns its endpoint, whichever node's products
// created it (the posts' handle grains are spread over the nodes); after a
// SIGKILL of the owner of an endpoint whose receiver hung, its queued
// deliveries arrive from a survivor within 60 s, under their original ids.
func TestE2EClusterWebhooks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	nodes := startCluster(t, 3)
	addrs := make([]string, len(nodes))
	for i, s := range nodes {
		addrs[i] = s.clusterAddr
	}
	a := nodes[0]
	k := a.xgKey(t, "pro")
	handles := clusterUsers(t, nodes, 6)
	a.xgTrack(t, k.key, handles...)

	// Every delivery once, by the owner alone.
	ok := newCXReceiver(t, func(int) int { return 200 })
	w1 := a.xgCreateWebhook(t, k.key, ok.srv.URL+"/once", nil)
	waitWebhookEverywhere(t, nodes, k.key, w1.num(t, "id"))
	var posts []string
	for i, h := range handles {
		p := postObs(h, "post", fmt.Sprintf("once %d", i))
		nodes[i%len(nodes)].send(t, p)
		posts = append(posts, p["id"].(string))
	}
	for _, id := range posts {
		ok.waitHits(t, id, 1)
	}
	owner1 := cluster.OwnerOf(addrs, cluster.Part("xg", int64(w1.num(t, "id"))))
	for _, s := range nodes {
		n := s.metrics(t).value("alertd_deliveries_total", "channel", "webhook")
		if s.clusterAddr != owner1 && n != 0 {
			t.Errorf("node %s, not the endpoint's owner (%s), made %v webhook deliveries", s.clusterAddr, owner1, n)
		}
	}

	// SIGKILL of the owner of a queue.
	hung := newCXReceiver(t, func(int) int { return 0 }) // no answer: attempts in flight, the rest queued
	w2 := a.xgCreateWebhook(t, k.key, hung.srv.URL+"/failover", nil)
	id2 := int64(w2.num(t, "id"))
	waitWebhookEverywhere(t, nodes, k.key, w2.num(t, "id"))
	var victim *server
	for _, s := range nodes {
		if s.clusterAddr == cluster.OwnerOf(addrs, cluster.Part("xg", id2)) {
			victim = s
		}
	}
	var queued []string
	for i, h := range handles {
		p := postObs(h, "post", fmt.Sprintf("failover %d", i))
		nodes[i%len(nodes)].send(t, p)
		queued = append(queued, p["id"].(string))
	}
	// Every delivery stored (the owner attempts only what the store took)
	// and attempted once at least, none finished: the first attempts hang
	// for the 5 s timeout, so the last of three is over ten seconds away.
	testkit.WaitFor(t, syncWait, "an attempt of every failover delivery", func() (bool, string) {
		n := 0
		for _, id := range queued {
			if len(hung.byTweet(t, id)) > 0 {
				n++
			}
		}
		return n == len(queued), fmt.Sprintf("%d of %d", n, len(queued))
	})
	before := map[string]string{} // tweet id -> delivery id the dead owner attempted
	for _, h := range hung.got() {
		before[xgTweetID(t, h.body)] = h.header.Get("X-Delivery-Id")
	}
	hung.setAnswer(func(int) int { return 200 })
	killed := time.Now()
	killNode(t, victim)
	for _, id := range queued {
		testkit.WaitFor(t, 60*time.Second-time.Since(killed), "post "+id+" delivered after the kill", func() (bool, string) {
			for _, h := range hung.byTweet(t, id) {
				if h.status == 200 {
					return true, ""
				}
			}
			return false, "not yet"
		})
	}
	t.Logf("the dead owner's %d deliveries arrived %v after its SIGKILL", len(queued), time.Since(killed).Round(time.Millisecond))
	for _, id := range queued {
		for _, h := range hung.byTweet(t, id) {
			if d, ok := before[id]; ok && h.header.Get("X-Delivery-Id") != d {
				t.Errorf("post %s: delivery id %s after the kill, %s before", id, h.header.Get("X-Delivery-Id"), d)
			}
		}
	}
	// Nothing was sent twice while the nodes lived (checked last: by now
	// a second sender would have long sent).
	for _, id := range posts {
		if n := len(ok.byTweet(t, id)); n != 1 {
			t.Errorf("post %s delivered %d times, want once", id, n)
		}
	}
}

// clusterUsers ingests n users on every node (each node's directory knows
// the users its own ingest saw) and waits until each node finds them.
func clusterUsers(t *testing.T, nodes []*server, n int) []string {
	t.Helper()
	var handles []string
	var users []jsonMap
	for range n {
		h := newHandle("cw")
		handles = append(handles, h)
		users = append(users, userMap(newUserID(), h))
	}
	for _, s := range nodes {
		for _, u := range users {
			s.send(t, u)
		}
		probe := s.xgProbe(t)
		for _, h := range handles {
			testkit.WaitFor(t, syncWait, "user @"+h+" on "+s.base, func() (bool, string) {
				r := s.lookup(t, probe, h)
				return r.status == 200, r.String()
			})
		}
	}
	return handles
}

// waitWebhookEverywhere waits until every node delivers to webhook id
// (registered on one, carried to the others by the change feed).
func waitWebhookEverywhere(t *testing.T, nodes []*server, key string, id float64) {
	t.Helper()
	for _, s := range nodes {
		testkit.WaitFor(t, syncWait, fmt.Sprintf("webhook %v on %s", id, s.base), func() (bool, string) {
			r := s.do(t, "GET", "/v1/webhooks", bearer(key), nil)
			if r.status != 200 { // the key may not have reached this node yet
				return false, r.String()
			}
			return s.xgWebhookByID(t, key, id) != nil, "not listed"
		})
	}
}
