package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPumpFun: wallets, ceilings, the stream and the event list (spec 3).
func TestPumpFun(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: streamsMain})
		subtests{
			{"PFTargets", testPFTargets},
			{"PFCeilings", testPFCeilings},
			{"PFStream", testPFStream},
			{"PFEventsLast50", testPFEventsLast50},
		}.run(t, s)
	})
}

// testPFTargets: wallet targets with label and alert types; validation;
// duplicates; removal.
func testPFTargets(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "pf"}).key
	list := func() []obj {
		t.Helper()
		d := s.call(t, "GET", "/v1/pf/targets", key, nil).wantOK(t, 200)
		d.wantKeys(t, "targets", "targets", "count", "max_wallets")
		if d.num(t, "max_wallets") != 3 {
			t.Errorf("max_wallets %v, want the default 3", d["max_wallets"])
		}
		var out []obj
		for _, raw := range d.array(t, "targets") {
			o := decodeObj(t, raw, "target")
			o.wantKeys(t, "target", "wallet_address", "label", "alert_types", "created_at")
			out = append(out, o)
		}
		if d.num(t, "count") != float64(len(out)) {
			t.Errorf("count %v, %d targets", d["count"], len(out))
		}
		return out
	}
	if n := len(list()); n != 0 {
		t.Fatalf("%d targets at first", n)
	}
	w1, w2 := solAddr(), solAddr()
	d := s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": w1, "label": "Dev wallet \u2728"}).wantOK(t, 201)
	d.wantKeys(t, "added target", "wallet_address", "label", "alert_types", "created_at")
	if d.str(t, "wallet_address") != w1 || d.str(t, "label") != "Dev wallet \u2728" ||
		fmt.Sprint(d.strings(t, "alert_types")) != "[livestream token_launch graduation]" {
		t.Errorf("added target %v", d)
	}
	wantISOTimeRFC(t, "created_at", d.str(t, "created_at"))
	d = s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": w2, "alert_types": []string{"graduation", "callouts"}}).wantOK(t, 201)
	if d.str(t, "label") != "" || fmt.Sprint(d.strings(t, "alert_types")) != "[callouts graduation]" {
		t.Errorf("caller target %v", d)
	}
	got := list()
	if len(got) != 2 || got[0].str(t, "wallet_address") != w1 || got[1].str(t, "wallet_address") != w2 {
		t.Fatalf("list %v", got)
	}
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": w1, "alert_types": []string{"callouts"}}).wantErr(t, 409, "conflict")
	// Validation.
	s.call(t, "POST", "/v1/pf/targets", key, `{"label":"x"}`).wantPlain(t, 422)
	s.call(t, "POST", "/v1/pf/targets", key, `{"wallet_address":`).wantPlain(t, 400)
	s.call(t, "POST", "/v1/pf/targets", key, `"`+w1+`"`).wantPlain(t, 400)
	for _, bad := range []map[string]any{
		{"wallet_address": 5},
		{"wallet_address": ""},
		{"wallet_address": "0x52908400098527886E0F7030069857D2E4169EE7"},
		{"wallet_address": w1[:20]},
		{"wallet_address": w1 + "0"},
		{"wallet_address": solAddr(), "label": 7},
		{"wallet_address": solAddr(), "label": strings.Repeat("x", 101)},
		{"wallet_address": solAddr(), "alert_types": "callouts"},
		{"wallet_address": solAddr(), "alert_types": []string{}},
		{"wallet_address": solAddr(), "alert_types": []string{"launches"}},
	} {
		s.call(t, "POST", "/v1/pf/targets", key, bad).wantErr(t, 400, "bad_request")
	}
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": solAddr(), "label": strings.Repeat("é", 100)}).wantOK(t, 201)
	if n := len(list()); n != 3 {
		t.Fatalf("%d targets after refused adds, want 3", n)
	}
	// Removal.
	s.call(t, "DELETE", "/v1/pf/targets/"+solAddr(), key, nil).wantErr(t, 404, "not_found")
	d = s.call(t, "DELETE", "/v1/pf/targets/"+w1, key, nil).wantOK(t, 200)
	if d.str(t, "removed") != w1 {
		t.Errorf("removed %v", d)
	}
	s.call(t, "DELETE", "/v1/pf/targets/"+w1, key, nil).wantErr(t, 404, "not_found")
	other := s.issue(t, map[string]any{"product": "pf"}).key
	s.call(t, "DELETE", "/v1/pf/targets/"+w2, other, nil).wantErr(t, 404, "not_found")
	if got := list(); len(got) != 2 || got[0].str(t, "wallet_address") != w2 {
		t.Fatalf("after removal %v", got)
	}
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": w1, "alert_types": []string{"callouts"}}).wantOK(t, 201)
}

// testPFCeilings: max_wallets is the ceiling of each alert type separately.
func testPFCeilings(t *testing.T, s *server) {
	acc := s.issue(t, map[string]any{"product": "pf", "max_wallets": 3})
	key := acc.key
	add := func(types ...string) resp {
		t.Helper()
		body := map[string]any{"wallet_address": solAddr()}
		if types != nil {
			body["alert_types"] = types
		}
		return s.call(t, "POST", "/v1/pf/targets", key, body)
	}
	status := func() obj {
		t.Helper()
		d := s.call(t, "GET", "/v1/pf/status", key, nil).wantOK(t, 200)
		d.wantKeys(t, "pf status", "subscription_status", "plan", "expires_at", "max_wallets", "wallets", "alert_types")
		return d
	}
	use := func(d obj, typ string) (int, int) {
		t.Helper()
		u := d.object(t, "alert_types").object(t, typ)
		u.wantKeys(t, "alert type use", "used", "max")
		return int(u.num(t, "used")), int(u.num(t, "max"))
	}
	for range 3 {
		add().wantOK(t, 201) // livestream, token_launch, graduation
	}
	r := add()
	r.wantErr(t, 403, "forbidden")
	add("graduation").wantErr(t, 403, "forbidden")
	for range 3 {
		add("callouts").wantOK(t, 201) // callers have their own ceiling
	}
	add("callouts").wantErr(t, 403, "forbidden")
	add("callouts", "livestream").wantErr(t, 403, "forbidden")
	d := status()
	if d.str(t, "subscription_status") != "active" || d.num(t, "max_wallets") != 3 || d.num(t, "wallets") != 6 {
		t.Errorf("status %v", d)
	}
	for _, typ := range []string{"callouts", "livestream", "token_launch", "graduation"} {
		if u, m := use(d, typ); u != 3 || m != 3 {
			t.Errorf("%s use %d/%d, want 3/3", typ, u, m)
		}
	}
	// A bigger plan makes room.
	s.patch(t, acc.account, "pf", map[string]any{"max_wallets": 6}).wantOK(t, 200)
	add("token_launch").wantOK(t, 201)
	d = status()
	if u, m := use(d, "token_launch"); u != 4 || m != 6 {
		t.Errorf("token_launch use %d/%d, want 4/6", u, m)
	}
	if u, _ := use(d, "livestream"); u != 3 {
		t.Errorf("livestream use %d, want 3", u)
	}
}

// pfLaunch is a launchpad observation.
func pfLaunch(ev, wallet, mint, sym string) jsonMap {
	return jsonMap{"kind": "launchpad", "event_type": ev, "wallet_address": wallet, "mint": mint, "token_name": "Token " + sym,
		"token_symbol": sym, "creator": wallet, "bonding_curve": solAddr(), "uri": "https://ipfs.example.com/" + sym,
		"signature": "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW", "market_cap": 31.5}
}

func pfCallout(caller, mint string, mcap float64) jsonMap {
	return jsonMap{"kind": "callout", "caller_wallet": caller, "caller_username": "caller_" + caller[:6], "mint": mint,
		"creator": "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", "token_name": "Dog Wif Hat Two", "token_symbol": "WIF2",
		"callout_mcap": mcap, "market_cap": mcap, "amount_held": 1500000, "cost_basis_sol": 2.5, "thesis": "strong community"}
}

func pfMcap(mint string, mcap float64) jsonMap {
	return jsonMap{"kind": "market_cap", "mint": mint, "market_cap": mcap}
}

var walletEventKeys = []string{"wallet_address", "mint", "token_name", "token_symbol", "event_type", "detected_at", "delivery_latency_ms"}

var calloutKeys = []string{"event_type", "mint", "creator", "token_name", "token_symbol", "market_cap", "detected_at",
	"caller_wallet", "caller_username", "callout_mcap", "multiplier", "amount_held", "cost_basis_sol", "thesis", "milestone"}

// testPFStream: /v1/pf/ws sends wallet events of the wallets (per alert
// type) and callouts of the callers listed at connect, milestones once each
// at 2x, 5x and 10x (a jump fires each milestone passed, lowest first; a dip
// fires nothing); GET /v1/pf/events lists the wallet events, newest first,
// without callouts.
func testPFStream(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "pf", "max_wallets": 10}).key
	other := s.issue(t, map[string]any{"product": "pf"}).key
	wallet, grad, caller, late := solAddr(), solAddr(), solAddr(), solAddr()
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": wallet, "label": "dev"}).wantOK(t, 201)
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": grad, "alert_types": []string{"graduation"}}).wantOK(t, 201)
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": caller, "alert_types": []string{"callouts"}}).wantOK(t, 201)
	w := s.streamDial(t, "pf", key)
	// Added after the socket connected: that socket does not hear it (spec
	// 3: target lists are read at connect), but its events are recorded.
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": late}).wantOK(t, 201)

	m1, m2, m3, m4, mc := solAddr(), solAddr(), solAddr(), solAddr(), solAddr()
	before := time.Now().UnixMilli()
	s.send(t,
		pfLaunch("token_launched", wallet, m1, "AAA"),
		pfLaunch("livestream_started", wallet, m1, "AAA"),
		pfLaunch("token_launched", grad, m2, "BBB"), // grad watches graduation only
		pfLaunch("graduated", grad, m2, "BBB"),
		pfLaunch("token_launched", late, m3, "CCC"),
		pfLaunch("token_launched", solAddr(), m4, "DDD"), // nobody's wallet
		pfCallout(solAddr(), mc, 40000),                  // a caller nobody lists
		pfCallout(caller, mc, 40000),
		pfMcap(mc, 60000),
		pfMcap(mc, 208000), // 5.2x: 2x and 5x at once
		pfMcap(mc, 120000), // dip
		pfMcap(mc, 210000), // back above 5x: nothing
		pfMcap(mc, 400000), // 10x
		pfMcap(mc, 900000),
		pfLaunch("livestream_ended", wallet, m1, "AAA"),
	)
	after := time.Now().UnixMilli()
	type want struct {
		event, wallet, mint, milestone string
		mcap, mult                     float64
	}
	wants := []want{
		{event: "token_launched", wallet: wallet, mint: m1},
		{event: "livestream_started", wallet: wallet, mint: m1},
		{event: "graduated", wallet: grad, mint: m2},
		{event: "callout_new", mint: mc, mcap: 40000, mult: 1},
		{event: "callout_milestone", mint: mc, milestone: "2x", mcap: 208000, mult: 5.2},
		{event: "callout_milestone", mint: mc, milestone: "5x", mcap: 208000, mult: 5.2},
		{event: "callout_milestone", mint: mc, milestone: "10x", mcap: 400000, mult: 10},
		{event: "livestream_ended", wallet: wallet, mint: m1},
	}
	for i, x := range wants {
		b := w.Next(t)
		d := streamFrame(t, b, "pf_event")
		if got := d.str(t, "event_type"); got != x.event {
			t.Fatalf("frame %d: event_type %q, want %q: %s", i, got, x.event, b)
		}
		if d.str(t, "mint") != x.mint {
			t.Errorf("frame %d: mint %s, want %s", i, d["mint"], x.mint)
		}
		at := int64(d.num(t, "detected_at"))
		if at < before || at > after {
			t.Errorf("frame %d: detected_at %d (epoch ms) outside [%d, %d]", i, at, before, after)
		}
		if x.wallet != "" {
			d.wantKeys(t, "wallet event", walletEventKeys...)
			sym := map[string]string{m1: "AAA", m2: "BBB"}[x.mint]
			if d.str(t, "wallet_address") != x.wallet || d.str(t, "token_symbol") != sym || d.str(t, "token_name") != "Token "+sym {
				t.Errorf("frame %d: %s", i, b)
			}
			if l := d.num(t, "delivery_latency_ms"); l < 0 || l != float64(int64(l)) {
				t.Errorf("frame %d: delivery_latency_ms %v", i, l)
			}
			continue
		}
		d.wantKeys(t, "callout", calloutKeys...)
		if d.str(t, "caller_wallet") != caller || d.str(t, "caller_username") != "caller_"+caller[:6] ||
			d.num(t, "callout_mcap") != 40000 || d.num(t, "market_cap") != x.mcap || d.num(t, "multiplier") != x.mult ||
			d.num(t, "amount_held") != 1500000 || d.num(t, "cost_basis_sol") != 2.5 || d.str(t, "thesis") != "strong community" ||
			d.str(t, "creator") != "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM" || d.str(t, "token_name") != "Dog Wif Hat Two" ||
			d.str(t, "token_symbol") != "WIF2" {
			t.Errorf("frame %d: %s", i, b)
		}
		if x.milestone == "" {
			if !d.isNull("milestone") {
				t.Errorf("frame %d: milestone %s, want null", i, d["milestone"])
			}
		} else if got := d.str(t, "milestone"); got != x.milestone {
			t.Errorf("frame %d: milestone %q, want %q", i, got, x.milestone)
		}
	}
	// Another account's socket gets its own wallets' events only.
	own := solAddr()
	s.call(t, "POST", "/v1/pf/targets", other, map[string]any{"wallet_address": own}).wantOK(t, 201)
	wOther2 := s.streamDial(t, "pf", other)
	s.send(t, pfLaunch("token_launched", own, solAddr(), "OWN"))
	if d := streamFrame(t, wOther2.Next(t), "pf_event"); d.str(t, "wallet_address") != own {
		t.Fatalf("other account's new socket: %v", d)
	}

	// The events list: newest first, wallet events of listed wallets only
	// (late's included), no callouts, detected_at in ISO 8601.
	var events []obj
	s.afterSync(t, "pf events recorded", func() (bool, string) {
		d := s.call(t, "GET", "/v1/pf/events", key, nil).wantOK(t, 200)
		d.wantKeys(t, "events", "events", "count")
		events = events[:0]
		for _, raw := range d.array(t, "events") {
			events = append(events, decodeObj(t, raw, "event"))
		}
		return len(events) == 5, fmt.Sprint(d)
	})
	wantOrder := []struct{ ev, wallet, mint string }{
		{"livestream_ended", wallet, m1}, {"token_launched", late, m3}, {"graduated", grad, m2},
		{"livestream_started", wallet, m1}, {"token_launched", wallet, m1},
	}
	for i, e := range events {
		e.wantKeys(t, "event record", walletEventKeys...)
		x := wantOrder[i]
		if e.str(t, "event_type") != x.ev || e.str(t, "wallet_address") != x.wallet || e.str(t, "mint") != x.mint {
			t.Errorf("event %d: %v, want %v", i, e, x)
		}
		at := wantISOTime(t, "detected_at", e.str(t, "detected_at"))
		if at.UnixMilli() < before || at.UnixMilli() > after {
			t.Errorf("event %d: detected_at %v outside the ingest", i, at)
		}
		if l := e.num(t, "delivery_latency_ms"); l < 0 || l != float64(int64(l)) {
			t.Errorf("event %d: delivery_latency_ms %v", i, l)
		}
	}
	s.afterSync(t, "the other account's one event", func() (bool, string) {
		d := s.call(t, "GET", "/v1/pf/events", other, nil).wantOK(t, 200)
		return d.num(t, "count") == 1, fmt.Sprint(d)
	})
	// A socket opened now hears late's wallet too; the first socket still
	// does not: its next frame is the wallet event sent after late's.
	w2 := s.streamDial(t, "pf", key)
	s.send(t, pfLaunch("livestream_started", late, m3, "CCC"), pfLaunch("graduated", wallet, m1, "AAA"))
	if d := streamFrame(t, w2.Next(t), "pf_event"); d.str(t, "wallet_address") != late || d.str(t, "event_type") != "livestream_started" {
		t.Fatalf("new socket: %v", d)
	}
	if d := streamFrame(t, w.Next(t), "pf_event"); d.str(t, "wallet_address") != wallet || d.str(t, "event_type") != "graduated" {
		t.Fatalf("old socket: %v, want the graduation of the wallet listed at connect (not late's event)", d)
	}
}

// testPFEventsLast50: the events list keeps the last 50.
func testPFEventsLast50(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "pf"}).key
	wallet := solAddr()
	s.call(t, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": wallet}).wantOK(t, 201)
	var obs []any
	var mints []string
	for i := range 55 {
		m := solAddr()
		mints = append(mints, m)
		obs = append(obs, pfLaunch("token_launched", wallet, m, fmt.Sprint("T", i)))
	}
	s.send(t, obs...)
	s.afterSync(t, "the 55th event listed", func() (bool, string) {
		d := s.call(t, "GET", "/v1/pf/events", key, nil).wantOK(t, 200)
		items := d.array(t, "events")
		if len(items) == 0 {
			return false, "none"
		}
		var first struct{ Mint string }
		_ = json.Unmarshal(items[0], &first)
		return first.Mint == mints[54], fmt.Sprint(len(items), " events")
	})
	d := s.call(t, "GET", "/v1/pf/events", key, nil).wantOK(t, 200)
	items := d.array(t, "events")
	if len(items) != 50 || d.num(t, "count") != 50 {
		t.Fatalf("%d events listed, want the last 50", len(items))
	}
	var last struct{ Mint string }
	_ = json.Unmarshal(items[49], &last)
	if last.Mint != mints[5] {
		t.Errorf("oldest listed %s, want the 6th event's mint %s", last.Mint, mints[5])
	}
}
