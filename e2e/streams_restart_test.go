package e2e

import (
	"fmt"
	"testing"
)

// TestStreamsRestart: subscriptions, wallets, the watchlist, queries
// and webhooks survive a restart on the same store, and the detectors work
// from what was reloaded.
func TestStreamsRestart(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: streamsMain})
		trend := s.issue(t, map[string]any{"product": "trend"}).key
		pf := s.issue(t, map[string]any{"product": "pf"}).key
		eca := s.issue(t, map[string]any{"product": "eca"}).key
		sa := s.issue(t, map[string]any{"product": "sa"}).key
		s.call(t, "PUT", "/v1/trending/subscriptions", trend, `{"categories":["music","crypto"]}`).wantOK(t, 200)
		wallet, caller := solAddr(), solAddr()
		s.call(t, "POST", "/v1/pf/targets", pf, map[string]any{"wallet_address": wallet, "label": "kept"}).wantOK(t, 201)
		s.call(t, "POST", "/v1/pf/targets", pf, map[string]any{"wallet_address": caller, "alert_types": []string{"callouts"}}).wantOK(t, 201)
		mint := solAddr()
		entry := s.call(t, "POST", "/v1/eca/watchlist", eca, map[string]any{"contract_address": mint}).wantOK(t, 201)
		a := word("kept")
		q := s.call(t, "POST", "/v1/sa/queries", sa, map[string]any{"query_text": a, "interval": "1m"}).wantOK(t, 201)
		for _, p := range streamProducts {
			key := map[string]string{"trending": trend, "pf": pf, "eca": eca, "sa": sa}[p.segment]
			s.call(t, "PUT", "/v1/"+p.segment+"/webhook", key, map[string]any{"url": "https://hooks.example.com/" + p.segment}).wantOK(t, 200)
		}
		before := map[string]string{
			"trend": string(s.call(t, "GET", "/v1/trending/subscriptions", trend, nil).body),
			"pf":    string(s.call(t, "GET", "/v1/pf/targets", pf, nil).body),
			"eca":   string(s.call(t, "GET", "/v1/eca/watchlist", eca, nil).body),
			"sa":    string(s.call(t, "GET", "/v1/sa/queries", sa, nil).body),
		}
		s = s.restart(t)
		after := map[string]string{
			"trend": string(s.call(t, "GET", "/v1/trending/subscriptions", trend, nil).body),
			"pf":    string(s.call(t, "GET", "/v1/pf/targets", pf, nil).body),
			"eca":   string(s.call(t, "GET", "/v1/eca/watchlist", eca, nil).body),
			"sa":    string(s.call(t, "GET", "/v1/sa/queries", sa, nil).body),
		}
		for k, v := range before {
			if after[k] != v {
				t.Errorf("%s after restart:\n got %s\nwant %s", k, after[k], v)
			}
		}
		for _, p := range streamProducts {
			key := map[string]string{"trending": trend, "pf": pf, "eca": eca, "sa": sa}[p.segment]
			if got := s.call(t, "GET", "/v1/"+p.segment+"/webhook", key, nil).wantOK(t, 200).str(t, "url"); got != "https://hooks.example.com/"+p.segment {
				t.Errorf("%s webhook after restart: %q", p.segment, got)
			}
		}
		s.call(t, "POST", "/v1/eca/watchlist", eca, map[string]any{"ticker": "X"}).wantErr(t, 403, "forbidden")

		wp, we, ws := s.streamDial(t, "pf", pf), s.streamDial(t, "eca", eca), s.streamDial(t, "sa", sa)
		l := ecaLaunch("token_launched", mint, solAddr(), "KPT", "Kept")
		post := postObs(newHandle("kept"), "post", "still "+a)
		s.send(t, pfLaunch("graduated", wallet, solAddr(), "GRD"), pfCallout(caller, solAddr(), 1000), l, post)
		if d := streamFrame(t, wp.Next(t), "pf_event"); d.str(t, "wallet_address") != wallet {
			t.Errorf("pf after restart: %v", d)
		}
		if d := streamFrame(t, wp.Next(t), "pf_event"); d.str(t, "caller_wallet") != caller || d.str(t, "event_type") != "callout_new" {
			t.Errorf("pf callout after restart: %v", d)
		}
		wantMatch(t, we.Next(t), entry.num(t, "id"), l, "contract_address")
		d := streamFrame(t, ws.Next(t), "search_alert")
		if d.num(t, "query_id") != q.num(t, "query_id") || d.str(t, "tweet_id") != post["id"] {
			t.Errorf("sa after restart: %v", d)
		}
		if n := fmt.Sprint(len(s.ecaList(t, eca))); n != "0" {
			t.Errorf("matched entry listed after restart: %s", n)
		}
	})
}
