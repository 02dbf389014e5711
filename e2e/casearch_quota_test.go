package e2e

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/persistence/postgres"
)

// testSearchRateLimits: 10 calls a second and 20 a minute per account, in
// fixed windows; refusals carry retry_after 1 or 60, Retry-After and the
// quota headers. Bursts are back to back, so the per-second assertions hold
// however the windows fall; a burst that straddles a window is retried on
// a fresh account.
func testSearchRateLimits(t *testing.T, s *server) {
	body := `{"query":"gm"}`
	var perSecond resp
	for attempt := 0; attempt < 4 && perSecond.status == 0; attempt++ {
		k := s.csKey(t, 1000)
		var codes []int
		for i := 0; i < 12; i++ {
			r := s.csSearch(t, k.key, body)
			codes = append(codes, r.status)
			if r.status == 429 {
				perSecond = r
				break
			}
			if r.status != 200 {
				t.Fatalf("call %d: %s", i, r)
			}
		}
		if perSecond.status == 429 && len(codes) != 11 {
			t.Fatalf("refused after %d calls, want after 10: %v", len(codes)-1, codes)
		}
	}
	if perSecond.status != 429 {
		t.Fatalf("12 back-to-back calls were never refused (4 tries)")
	}
	env := perSecond.wantErr(t, 429, "rate_limited")
	if string(env["retry_after"]) != "1" || perSecond.header.Get("Retry-After") != "1" {
		t.Errorf("per-second 429: retry_after %s, Retry-After %q; want 1", env["retry_after"], perSecond.header.Get("Retry-After"))
	}
	if q := csQuota(perSecond); q != [4]string{"1000", "990", "20", "10"} {
		t.Errorf("per-second 429 headers %v, want 1000 990 20 10", q)
	}

	// The minute: 20 calls pass (waiting out the per-second refusals),
	// then 60 s refusals until the window started by the first call ends.
	k := s.csKey(t, 1000)
	start := time.Now()
	ok := 0
	var perMinute resp
	for perMinute.status == 0 {
		if time.Since(start) > 50*time.Second {
			t.Fatalf("only %d calls in 50 s", ok)
		}
		r := s.csSearch(t, k.key, body)
		switch {
		case r.status == 200:
			ok++
			if q := csQuota(r); q[3] != strconv.Itoa(20-ok) || q[1] != strconv.Itoa(1000-ok) {
				t.Errorf("call %d: headers %v", ok, q)
			}
		case r.status == 429 && ok < 20:
			if env := r.wantErr(t, 429, "rate_limited"); string(env["retry_after"]) != "1" {
				t.Fatalf("before 20 calls: retry_after %s", env["retry_after"])
			}
			time.Sleep(50 * time.Millisecond) // paces the calls into the next second window
		case r.status == 429:
			perMinute = r
		default:
			t.Fatalf("%s", r)
		}
	}
	if ok != 20 {
		t.Errorf("%d calls passed in the minute, want 20", ok)
	}
	env = perMinute.wantErr(t, 429, "rate_limited")
	if string(env["retry_after"]) != "60" || perMinute.header.Get("Retry-After") != "60" {
		t.Errorf("per-minute 429: retry_after %s, Retry-After %q; want 60", env["retry_after"], perMinute.header.Get("Retry-After"))
	}
	if q := csQuota(perMinute); q != [4]string{"1000", "980", "20", "0"} {
		t.Errorf("per-minute 429 headers %v, want 1000 980 20 0", q)
	}
	// Another account has its own windows.
	other := s.csKey(t, 1000)
	if r := s.csSearch(t, other.key, body); r.status != 200 {
		t.Errorf("another account: %s", r)
	}
}

// testSearchDaily: the allowance per UTC day, shared by the account's keys
// (a reissued key keeps the count), then 429 daily_limit_reached until
// midnight UTC.
func testSearchDaily(t *testing.T, s *server) {
	k := s.csKey(t, 3)
	for i := 0; i < 2; i++ {
		r := s.csSearch(t, k.key, `{"query":"gm"}`)
		csDecode(t, r)
		if q := csQuota(r); q[0] != "3" || q[1] != strconv.Itoa(2-i) || q[2] != "20" {
			t.Errorf("call %d headers %v", i, q)
		}
	}
	// A new key for the same account shares the allowance.
	k2 := s.issue(t, map[string]any{"product": "dt", "account_id": k.account})
	r := s.csSearch(t, k2.key, `{"query":"gm"}`)
	csDecode(t, r)
	if q := csQuota(r); q[1] != "0" {
		t.Errorf("reissued key: daily remaining %s, want 0", q[1])
	}
	s.csSearch(t, k.key, `{"query":"gm"}`).wantErr(t, 401, "unauthorized") // the old key is gone
	r = s.csSearch(t, k2.key, `{"query":"gm"}`)
	before := time.Now().UTC()
	env := r.wantErr(t, 429, "daily_limit_reached")
	midnight := time.Date(before.Year(), before.Month(), before.Day()+1, 0, 0, 0, 0, time.UTC)
	retry, err := strconv.Atoi(string(env["retry_after"]))
	if want := midnight.Sub(before).Seconds(); err != nil || math.Abs(float64(retry)-want) > 5 {
		t.Errorf("retry_after %s, want about %.0f (seconds to 00:00 UTC)", env["retry_after"], want)
	}
	if r.header.Get("Retry-After") != string(env["retry_after"]) {
		t.Errorf("Retry-After %q, retry_after %s", r.header.Get("Retry-After"), env["retry_after"])
	}
	if q := csQuota(r); q[0] != "3" || q[1] != "0" || q[2] != "20" || q[3] == "" {
		t.Errorf("daily 429 headers %v", q)
	}
	// Raising the allowance applies at once.
	s.patch(t, k.account, "dt", map[string]any{"ca_search_daily_limit": 5}).wantOK(t, 200)
	if r := s.csSearch(t, k2.key, `{"query":"gm"}`); r.status != 200 || csQuota(r)[1] != "1" {
		t.Errorf("after raising the allowance: %s headers %v", r, csQuota(r))
	}
	// Removing the add-on: 403.
	s.patch(t, k.account, "dt", map[string]any{"ca_search_daily_limit": nil}).wantOK(t, 200)
	s.csSearch(t, k2.key, `{"query":"gm"}`).wantErr(t, 403, "forbidden")
}

// csRawDB opens the server's database beside it.
func csRawDB(t *testing.T, dataDir, dbURL string) *sql.DB {
	t.Helper()
	if dbURL != "" {
		st, err := postgres.Open(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st.DB()
	}
	st, err := embedded.Open(context.Background(), dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.DB()
}

// TestCASearchRestartAndFailure: the daily count and the posts survive a
// restart (the index warms from the store); a store failure is a 500 that
// still counts and carries the quota headers.
func TestCASearchRestartAndFailure(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		k := s.csKey(t, 6)
		word := csWord("restart")
		tick := csTicker()
		a := csAuthor{id: "999", handle: "cs_restart" + testkit.RandomHex(3), name: "R", followers: 9}
		now := time.Now()
		var want []string
		for i := 0; i < 3; i++ {
			p := csPost(csID(), now.Add(-time.Duration(i+1)*time.Hour), "post", word+" $"+tick, a)
			s.send(t, p)
			want = append(want, p["id"].(string))
		}
		old := csPost(csID(), now.Add(-50*time.Hour), "post", word+" old $"+tick, a)
		s.send(t, old)
		cl := s.csClient(t)
		cl.wait(t, map[string]any{"query": word}, 3)
		cl.wait(t, map[string]any{"query": "$" + tick, "since": now.Add(-72 * time.Hour).Format(time.RFC3339)}, 4)
		for i := 0; i < 2; i++ {
			csDecode(t, s.csSearch(t, k.key, `{"query":"gm"}`))
		}
		left := 4

		s = s.restart(t)
		var p csPage
		r := s.csSearch(t, k.key, `{"query":"gm"}`)
		csDecode(t, r)
		if got := csQuota(r)[1]; got != strconv.Itoa(left-1) {
			t.Fatalf("after the restart: daily remaining %s, want %d (the count was not kept)", got, left-1)
		}
		p = s.csClient(t).wait(t, map[string]any{"query": word}, 3)
		testkit.WaitFor(t, 30*time.Second, "the index warmed from the store", func() (bool, string) {
			return strings.Contains(s.log.String(), `"msg":"search index warmed"`), testkit.Tail(s.log.String(), 300)
		})
		for i, id := range want {
			if p.ids[i] != id {
				t.Errorf("after the restart: %v, want %v", p.ids, want)
				break
			}
		}

		// Break the store's terms table: an old-window cashtag search fails
		// with a 500 that is counted.
		k2 := s.csKey(t, 10)
		db := csRawDB(t, s.opts.dataDir, s.opts.dbURL)
		if _, err := db.Exec(`ALTER TABLE search_terms RENAME TO search_terms_away`); err != nil {
			t.Fatal(err)
		}
		r = s.csSearch(t, k2.key, map[string]any{"query": "$" + tick, "since": now.Add(-72 * time.Hour).Format(time.RFC3339)})
		env := r.wantErr(t, 500, "server_error")
		if string(env["retry_after"]) != "30" || r.header.Get("Retry-After") != "30" {
			t.Errorf("500: retry_after %s, Retry-After %q", env["retry_after"], r.header.Get("Retry-After"))
		}
		if q := csQuota(r); q != [4]string{"10", "9", "20", "19"} {
			t.Errorf("500 headers %v, want 10 9 20 19", q)
		}
		if _, err := db.Exec(`ALTER TABLE search_terms_away RENAME TO search_terms`); err != nil {
			t.Fatal(err)
		}
		r = s.csSearch(t, k2.key, map[string]any{"query": "$" + tick, "since": now.Add(-72 * time.Hour).Format(time.RFC3339)})
		if p := csDecode(t, r); len(p.ids) != 4 || csQuota(r)[1] != "8" {
			t.Errorf("after repair: %v, headers %v", p.ids, csQuota(r))
		}
	})
}
