package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestProcessSIGKILLAfterIngestAnswer is issue 10's "accepted means
// durable": 200 posts of a tracked account are ingested in one request and
// the process is killed (SIGKILL) as soon as the answer arrives. After a
// restart on the same data dir and store, every post reaches the account's
// webhook and is found by CA Search; after a clean stop and a third start
// (which replays nothing) CA Search still finds them all, from the store.
func TestProcessSIGKILLAfterIngestAnswer(t *testing.T) {
	testkit.ForEachStore(t, func(t *testing.T, st testkit.Store) {
		p, args, key, handle := startTracking(t, st, "durable")
		token := p.admin // for the restarts
		search := p.data(t, "POST", "/admin/v1/keys", p.admin, map[string]any{"product": "dt", "plan": "enterprise", "ca_search_daily_limit": 1000}, 201)["key"].(string)
		rcv := newReceiver(t, func(int) int { return 200 })
		p.data(t, "POST", "/v1/webhooks", key, map[string]any{"url": rcv.srv.URL}, 201)

		const n = 200
		word := "durable" + testkit.RandomHex(5)
		want := map[string]bool{}
		var obs []any
		for i := range n {
			id := fmt.Sprintf("19%d%03d", time.Now().UnixNano()%1e12, i)
			want[id] = true
			obs = append(obs, post(id, handle, fmt.Sprint(word, " post ", i)))
		}
		p.ingest(t, obs...)
		p.kill()
		early := len(rcv.got())

		p = startProc(t, args)
		p.admin = token
		testkit.WaitFor(t, 60*time.Second, fmt.Sprint("all ", n, " posts delivered to the webhook"), func() (bool, string) {
			got := map[string]bool{}
			for _, h := range rcv.got() {
				if h.status == 200 && want[tweetID(h.body)] {
					got[tweetID(h.body)] = true
				}
			}
			return len(got) == n, fmt.Sprint(len(got), " of ", n, " (", early, " before the kill)")
		})
		found := func() (bool, string) {
			st, env := p.call(t, "POST", "/v1/search", search, map[string]any{"query": word})
			d, _ := env["data"].(map[string]any)
			tweets, _ := d["tweets"].([]any)
			return st == 200 && len(tweets) == n, fmt.Sprint(st, " ", len(tweets), " of ", n, " found")
		}
		testkit.WaitFor(t, 30*time.Second, "CA Search finds every post after the restart", found)
		p.stop(t)
		if s := p.stderr.String(); strings.Contains(s, "abandoned") {
			t.Errorf("the writer abandoned records at stop:\n%s", testkit.Tail(s, 2000))
		}

		p = startProc(t, args) // a clean stop took the last checkpoint: nothing replays
		p.admin = token
		if strings.Contains(p.stderr.String(), "ingest log replayed") {
			t.Errorf("the start after a clean stop replayed the ingest log:\n%s", testkit.Tail(p.stderr.String(), 2000))
		}
		testkit.WaitFor(t, 30*time.Second, "CA Search finds every post from the store", found)
	})
}
