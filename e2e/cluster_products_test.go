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
		// Barrier: every socket hears a probe launch ingested on B and one
		// ingested on C (each node's sockets are known to the others).
		probes := map[string]bool{}
		for _, src := range nodes[1:] {
			heard := make([]bool, len(ws))
			for start := time.Now(); slices.Contains(heard, false); {
				if time.Since(start) > syncWait {
					t.Fatalf("probes ingested on %s: heard by sockets %v within %v", src.base, heard, syncWait)
				}
				m := solAddr()
				probes[m] = true
				src.send(t, pfLaunch("token_launched", wallet, m, "PRB"))
				for i, w := range ws {
					if !heard[i] {
						_, heard[i] = w.Read(500 * time.Millisecond)
					}
				}
			}
		}
		notProbe := func(b []byte) bool {
			var f struct {
				Data struct {
					Mint string `json:"mint"`
				} `json:"data"`
			}
			return json.Unmarshal(b, &f) == nil && !probes[f.Data.Mint]
		}
		// Launches ingested on B, then C: B's and C's detectors know the
		// wallet, and every node's socket gets each event once (the two
		// nodes' frames in either order); a third from B, whose frames
		// follow B's first, is next.
		m1, m2, m3 := solAddr(), solAddr(), solAddr()
		nodes[1].send(t, pfLaunch("token_launched", wallet, m1, "AAA"))
		nodes[2].send(t, pfLaunch("token_launched", wallet, m2, "BBB"))
		nodes[1].send(t, pfLaunch("token_launched", wallet, m3, "CCC"))
		for i, w := range ws {
			var got []string
			for range 3 {
				got = append(got, streamFrame(t, w.nextWhere(t, notProbe), "pf_event").str(t, "mint"))
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values([]string{m1, m2, m3}))) ||
				slices.Index(got, m1) > slices.Index(got, m3) {
				t.Fatalf("socket on node %d: mints %v, want %s and %s once each, %s after %s", i, got, m1, m2, m3, m1)
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
		// The sockets open first (an ECA socket hears its account's
		// matches, whatever its entries): the other nodes hear of them
		// while the entry travels.
		var ws []*wsClient
		for _, s := range nodes {
			ws = append(ws, s.streamDial(t, "eca", key))
		}
		tick := strings.ToUpper(word("T"))
		id := a.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"ticker": "$" + tick}).wantOK(t, 201).num(t, "id")
		until("the entry added on A listed on B and C", func() bool { return lists(key, id) })
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
