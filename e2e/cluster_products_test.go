package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestE2EClusterProducts: on three nodes, a PumpFun wallet and an ECA
// watchlist entry added on node A take effect on B and C (their detectors
// match what is ingested there: the registries' change feed), and the
// frames a detector publishes on one node reach the product sockets of
// every node once (the product topics' frames cross to the members that
// listen). An ECA launch ingested on all three nodes matches once.
func TestE2EClusterProducts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	nodes := startCluster(t, 3)
	a := nodes[0]
	until := func(what string, ok func() bool) {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > syncWait {
				t.Fatalf("%s: not seen within %v", what, syncWait)
			}
			time.Sleep(400 * time.Millisecond) // polling a condition (under the plans' REST rate), not proving an absence
		}
		t.Logf("%s in %v", what, time.Since(start).Round(time.Millisecond))
	}
	// everywhere waits until every node answers ok for path with key.
	everywhere := func(what, key, path string, ok func(body string) bool) {
		t.Helper()
		until(what, func() bool {
			for _, s := range nodes {
				r := s.do(t, "GET", path, bearer(key), nil)
				if r.status != 200 || !ok(string(r.body)) {
					return false
				}
			}
			return true
		})
	}

	t.Run("pumpfun", func(t *testing.T) {
		key := a.issue(t, map[string]any{"product": "pf", "max_wallets": 10}).key
		wallet := solAddr()
		everywhere("a pf key issued on A", key, "/v1/pf/targets", func(string) bool { return true })
		a.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": wallet}).wantOK(t, 201)
		everywhere("the wallet added on A listed on B and C", key, "/v1/pf/targets",
			func(b string) bool { return strings.Contains(b, wallet) })
		var ws []*wsClient
		for _, s := range nodes {
			ws = append(ws, s.streamDial(t, "pf", key)) // a socket reads its list when it opens
		}
		// Launches ingested on B, then C: B's and C's detectors know the
		// wallet, and every node's socket gets each event once, in order.
		m1, m2 := solAddr(), solAddr()
		nodes[1].send(t, pfLaunch("token_launched", wallet, m1, "AAA"))
		nodes[2].send(t, pfLaunch("token_launched", wallet, m2, "BBB"))
		for i, w := range ws {
			for _, mint := range []string{m1, m2} {
				b := w.Next(t)
				if d := streamFrame(t, b, "pf_event"); d.str(t, "mint") != mint {
					t.Fatalf("socket on node %d: %s, want the event of mint %s", i, b, mint)
				}
			}
		}
	})

	t.Run("eca", func(t *testing.T) {
		lists := func(key string, id float64) bool {
			for _, s := range nodes {
				r := s.do(t, "GET", "/v1/eca/watchlist", bearer(key), nil)
				var env struct {
					Data []struct {
						ID float64 `json:"id"`
					} `json:"data"`
				}
				if r.status != 200 || json.Unmarshal(r.body, &env) != nil ||
					!slices.ContainsFunc(env.Data, func(e struct {
						ID float64 `json:"id"`
					}) bool {
						return e.ID == id
					}) {
					return false
				}
			}
			return true
		}
		key := a.issue(t, map[string]any{"product": "eca"}).key
		everywhere("an eca key issued on A", key, "/v1/eca/watchlist", func(string) bool { return true })
		tick := strings.ToUpper(word("T"))
		id := a.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"ticker": "$" + tick}).wantOK(t, 201).num(t, "id")
		until("the entry added on A listed on B and C", func() bool { return lists(key, id) })
		var ws []*wsClient
		for _, s := range nodes {
			ws = append(ws, s.streamDial(t, "eca", key))
		}
		hit := ecaLaunch("token_launched", solAddr(), solAddr(), tick, "The Token")
		for _, s := range nodes { // the same launch on every node: one match
			s.send(t, hit)
		}
		for _, w := range ws {
			wantMatch(t, w.Next(t), id, hit, "ticker")
		}
		everywhere("the matched entry gone from every node's list", key, "/v1/eca/watchlist",
			func(b string) bool { return strings.TrimSpace(b) == "[]" || !strings.Contains(b, `"id"`) })
		// Barrier: a second entry's match, on every node, is each socket's
		// next frame: no node sent the first match again.
		mint := solAddr()
		id2 := a.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"contract_address": mint}).wantOK(t, 201).num(t, "id")
		until("the second entry listed on B and C", func() bool { return lists(key, id2) })
		hit2 := ecaLaunch("token_launched", mint, solAddr(), "ZZZ", "Zed")
		for _, s := range nodes {
			s.send(t, hit2)
		}
		for _, w := range ws {
			wantMatch(t, w.Next(t), id2, hit2, "contract_address")
		}
		everywhere("two matches listed", key, "/v1/eca/matches", func(b string) bool { return strings.Count(b, `"match_type"`) == 2 })
	})
}
