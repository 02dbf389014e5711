package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestECA: the watchlist and its matches (spec 3).
func TestECA(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: streamsMain})
		subtests{
			{"ECAWatchlist", testECAWatchlist},
			{"ECAMatch", testECAMatch},
			{"ECAMatchKinds", testECAMatchKinds},
		}.run(t, s)
	})
}

// TestECATimed runs the ECA tests that wait for an expiry or for the
// matches' listing time, on a server where both are 3 seconds.
func TestECATimed(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: ecaShort})
		t.Run("ECAExpiry", func(t *testing.T) { t.Parallel(); testECAExpiry(t, s) })
		t.Run("ECAMatchesTTL", func(t *testing.T) { t.Parallel(); testECAMatchesTTL(t, s) })
	})
}

var ecaEntryKeys = []string{"id", "ticker", "token_name", "contract_address", "creator_address", "source", "status",
	"created_at", "expires_at"}

// ecaList returns GET /v1/eca/watchlist's data array, decoded.
func (s *server) ecaList(t *testing.T, key string) []obj {
	t.Helper()
	var out []obj
	for _, raw := range s.call(t, "GET", "/v1/eca/watchlist", key, nil).wantArray(t, 200) {
		o := decodeObj(t, raw, "watchlist entry")
		o.wantKeys(t, "watchlist entry", ecaEntryKeys...)
		out = append(out, o)
	}
	return out
}

func (s *server) ecaStatus(t *testing.T, key string) (active, total int) {
	t.Helper()
	d := s.call(t, "GET", "/v1/eca/status", key, nil).wantOK(t, 200)
	d.wantKeys(t, "eca status", "subscription_status", "plan", "expires_at", "active_entries", "max_entries", "total_matches")
	if d.str(t, "subscription_status") != "active" || d.num(t, "max_entries") != 1 {
		t.Errorf("eca status %v", d)
	}
	return int(d.num(t, "active_entries")), int(d.num(t, "total_matches"))
}

// testECAWatchlist: creation rules, one active entry, removal (spec 3 state
// table: (none) -> active -> removed).
func testECAWatchlist(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "eca"}).key
	if l := s.ecaList(t, key); len(l) != 0 {
		t.Fatalf("watchlist at first: %v", l)
	}
	// Validation: at least one field; creator_address alone.
	s.call(t, "POST", "/v1/eca/watchlist", key, `{"ticker":`).wantPlain(t, 400)
	s.call(t, "POST", "/v1/eca/watchlist", key, `["WIF"]`).wantPlain(t, 400)
	s.do(t, "POST", "/v1/eca/watchlist", bearer(key), nil).wantPlain(t, 400)
	for _, bad := range []string{`{}`, `{"ticker":""}`, `{"ticker":"  "}`, `{"ticker":null,"token_name":null}`,
		`{"unknown":"x"}`, `{"ticker":5}`, `{"token_name":["a"]}`,
		`{"creator_address":"` + solAddr() + `","ticker":"WIF"}`,
		`{"creator_address":"` + solAddr() + `","contract_address":"` + solAddr() + `"}`,
		`{"ticker":"` + strings.Repeat("W", 101) + `"}`} {
		s.call(t, "POST", "/v1/eca/watchlist", key, bad).wantErr(t, 400, "bad_request")
	}
	mint := solAddr()
	start := time.Now()
	d := s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"ticker": " $WIF ", "token_name": "Dog Wif Hat",
		"contract_address": mint}).wantOK(t, 201)
	d.wantKeys(t, "created entry", ecaEntryKeys...)
	id := d.num(t, "id")
	if id < 1 || d.str(t, "ticker") != "WIF" || d.str(t, "token_name") != "Dog Wif Hat" || d.str(t, "contract_address") != mint ||
		!d.isNull("creator_address") || d.str(t, "source") != "api" || d.str(t, "status") != "active" {
		t.Errorf("created entry %v", d)
	}
	created := wantISOTime(t, "created_at", d.str(t, "created_at"))
	expires := wantISOTime(t, "expires_at", d.str(t, "expires_at"))
	if expires.Sub(created) != 4*time.Hour || created.Before(start.Add(-time.Second)) {
		t.Errorf("created %v expires %v: want a 4-hour life from now", created, expires)
	}
	l := s.ecaList(t, key)
	if len(l) != 1 || l[0].num(t, "id") != id {
		t.Fatalf("watchlist %v", l)
	}
	wantJSON(t, "listed entry", mustJSON(t, l[0]), d)
	if a, _ := s.ecaStatus(t, key); a != 1 {
		t.Errorf("active_entries %d, want 1", a)
	}
	// Only one active entry at a time: a limit ceiling, so 403.
	s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"creator_address": solAddr()}).wantErr(t, 403, "forbidden")
	other := s.issue(t, map[string]any{"product": "eca"}).key
	s.call(t, "POST", "/v1/eca/watchlist", other, map[string]any{"creator_address": solAddr()}).wantOK(t, 201)
	// Removal: 404 unless active and the caller's.
	sid := fmt.Sprint(int64(id))
	s.call(t, "DELETE", "/v1/eca/watchlist/"+sid, other, nil).wantErr(t, 404, "not_found")
	s.call(t, "DELETE", "/v1/eca/watchlist/abc", key, nil).wantErr(t, 404, "not_found")
	s.call(t, "DELETE", "/v1/eca/watchlist/999999999", key, nil).wantErr(t, 404, "not_found")
	if d := s.call(t, "DELETE", "/v1/eca/watchlist/"+sid, key, nil).wantOK(t, 200); d.num(t, "removed") != id {
		t.Errorf("removed %v", d)
	}
	s.call(t, "DELETE", "/v1/eca/watchlist/"+sid, key, nil).wantErr(t, 404, "not_found")
	if l := s.ecaList(t, key); len(l) != 0 {
		t.Fatalf("watchlist after removal: %v", l)
	}
	if a, m := s.ecaStatus(t, key); a != 0 || m != 0 {
		t.Errorf("status after removal: %d active, %d matches", a, m)
	}
	d = s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"creator_address": solAddr()}).wantOK(t, 201)
	if d.num(t, "id") == id || !d.isNull("ticker") || !d.isNull("token_name") || !d.isNull("contract_address") {
		t.Errorf("second entry %v", d)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ecaLaunch is a launchpad observation of a token.
func ecaLaunch(ev, mint, creator, sym, name string) jsonMap {
	return jsonMap{"kind": "launchpad", "event_type": ev, "wallet_address": creator, "mint": mint, "token_name": name,
		"token_symbol": sym, "creator": creator, "bonding_curve": "BC" + mint[:8], "uri": "https://ipfs.example.com/" + mint[:8],
		"signature": "SIG" + mint[:10], "market_cap": 30.5}
}

// wantMatch asserts a match frame of entry id for the token and returns its data.
func wantMatch(t *testing.T, b []byte, id float64, launch jsonMap, matchType string) obj {
	t.Helper()
	d := streamFrame(t, b, "match")
	d.wantKeys(t, "match data", "watchlist_entry", "token", "match_type", "matched_at")
	e := d.object(t, "watchlist_entry")
	e.wantKeys(t, "watchlist_entry", "id", "source", "community_name", "social_handle", "added_by_messenger_id")
	if e.num(t, "id") != id || e.str(t, "source") != "api" || !e.isNull("community_name") || !e.isNull("social_handle") ||
		!e.isNull("added_by_messenger_id") {
		t.Errorf("watchlist_entry %v", e)
	}
	tok := d.object(t, "token")
	tok.wantKeys(t, "token", "name", "symbol", "mint", "creator", "bonding_curve", "uri", "signature")
	wantJSON(t, "token", d["token"], jsonMap{"name": launch["token_name"], "symbol": launch["token_symbol"], "mint": launch["mint"],
		"creator": launch["creator"], "bonding_curve": launch["bonding_curve"], "uri": launch["uri"], "signature": launch["signature"]})
	if got := d.str(t, "match_type"); got != matchType {
		t.Errorf("match_type %q, want %q", got, matchType)
	}
	at := wantISOTime(t, "matched_at", d.str(t, "matched_at"))
	if time.Since(at) > time.Minute || time.Until(at) > time.Second {
		t.Errorf("matched_at %v is not now", at)
	}
	return d
}

// testECAMatch: active -> matched: a launched token matching the entry
// emits a match, ends the entry (no longer listed) and lists the match;
// other launch events and other tokens do not match, and a matched entry
// matches no more.
func testECAMatch(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "eca"}).key
	other := s.issue(t, map[string]any{"product": "eca"}).key
	tick := strings.ToUpper(word("T"))
	id := s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"ticker": "$" + tick}).wantOK(t, 201).num(t, "id")
	w, w2, wo := s.streamDial(t, "eca", key), s.streamDial(t, "eca", key), s.streamDial(t, "eca", other)

	creator := solAddr()
	grad := ecaLaunch("graduated", solAddr(), creator, tick, "Grad")          // not a launch
	live := ecaLaunch("livestream_started", solAddr(), creator, tick, "Live") // not a launch
	otherTok := ecaLaunch("token_launched", solAddr(), creator, tick+"X", "Near Miss")
	hit := ecaLaunch("token_launched", solAddr(), creator, strings.ToLower(tick), "The Token")
	again := ecaLaunch("token_launched", solAddr(), creator, tick, "Copycat")
	s.send(t, grad, live, otherTok, hit, again)
	d := wantMatch(t, w.Next(t), id, hit, "ticker")
	wantJSON(t, "second socket's frame", w2.Next(t), map[string]any{"type": "match", "data": d})
	if l := s.ecaList(t, key); len(l) != 0 {
		t.Errorf("matched entry still listed: %v", l)
	}
	var matches []json.RawMessage
	s.afterSync(t, "match listed", func() (bool, string) {
		matches = s.call(t, "GET", "/v1/eca/matches", key, nil).wantArray(t, 200)
		return len(matches) == 1, fmt.Sprint(len(matches), " matches")
	})
	wantJSON(t, "listed match", matches[0], d)
	if a, m := s.ecaStatus(t, key); a != 0 || m != 1 {
		t.Errorf("status: %d active, %d matches; want 0, 1", a, m)
	}
	// The entry matched once: "again" (same ticker) brought nothing. The
	// next frame is the match of a new entry.
	mint := solAddr()
	id2 := s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"contract_address": mint}).wantOK(t, 201).num(t, "id")
	hit2 := ecaLaunch("token_launched", mint, solAddr(), "ZZZ", "Zed")
	s.send(t, hit2)
	wantMatch(t, w.Next(t), id2, hit2, "contract_address")
	// The other account's socket got nothing: its own entry's match is its
	// first frame.
	cre := solAddr()
	id3 := s.call(t, "POST", "/v1/eca/watchlist", other, map[string]any{"creator_address": cre}).wantOK(t, 201).num(t, "id")
	hit3 := ecaLaunch("token_launched", solAddr(), cre, "OTH", "Other")
	s.send(t, hit3)
	wantMatch(t, wo.Next(t), id3, hit3, "creator_address")
	s.afterSync(t, "both matches listed", func() (bool, string) {
		matches = s.call(t, "GET", "/v1/eca/matches", key, nil).wantArray(t, 200)
		return len(matches) == 2, fmt.Sprint(len(matches), " matches")
	})
	var newest struct {
		Entry struct {
			ID float64 `json:"id"`
		} `json:"watchlist_entry"`
	}
	_ = json.Unmarshal(matches[0], &newest)
	if newest.Entry.ID != id2 {
		t.Errorf("matches not newest first: %s", matches[0])
	}
}

// testECAMatchKinds: token name (any case), creator wallet alone, and the
// most specific field naming a match of several.
func testECAMatchKinds(t *testing.T, s *server) {
	for _, c := range []struct {
		name     string
		entry    func(mint, creator, sym, tokName string) map[string]any
		launch   func(mint, creator, sym, tokName string) jsonMap
		wantType string
	}{
		{"token name", func(_, _, _, n string) map[string]any { return map[string]any{"token_name": strings.ToUpper(n)} },
			func(m, c, s, n string) jsonMap { return ecaLaunch("token_launched", m, c, "Q"+s, n) }, "token_name"},
		{"creator", func(_, c, _, _ string) map[string]any { return map[string]any{"creator_address": c} },
			func(m, c, s, n string) jsonMap { return ecaLaunch("token_launched", m, c, s, n) }, "creator_address"},
		{"ticker and name: ticker names it", func(_, _, s, n string) map[string]any { return map[string]any{"ticker": s, "token_name": n} },
			func(m, c, s, n string) jsonMap { return ecaLaunch("token_launched", m, c, s, n) }, "ticker"},
		{"any field: the name", func(_, _, s, n string) map[string]any { return map[string]any{"ticker": s + "NOPE", "token_name": n} },
			func(m, c, s, n string) jsonMap { return ecaLaunch("token_launched", m, c, s, n) }, "token_name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			key := s.issue(t, map[string]any{"product": "eca"}).key
			mint, creator, sym, name := solAddr(), solAddr(), strings.ToUpper(word("K")), "Name "+word("n")
			id := s.call(t, "POST", "/v1/eca/watchlist", key, c.entry(mint, creator, sym, name)).wantOK(t, 201).num(t, "id")
			w := s.streamDial(t, "eca", key)
			l := c.launch(mint, creator, sym, name)
			s.send(t, l)
			wantMatch(t, w.Next(t), id, l, c.wantType)
		})
	}
}

// testECAExpiry (short server, entries live 3 s): active -> expired: no
// longer listed, a new entry may be made, and the expired entry matches
// nothing.
func testECAExpiry(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "eca"}).key
	tick := strings.ToUpper(word("X"))
	d := s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"ticker": tick}).wantOK(t, 201)
	exp := wantISOTime(t, "expires_at", d.str(t, "expires_at"))
	if got := exp.Sub(wantISOTime(t, "created_at", d.str(t, "created_at"))); got != 3*time.Second {
		t.Errorf("entry life %v, want the configured 3s", got)
	}
	s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"ticker": "OTHER"}).wantErr(t, 403, "forbidden")
	testkit.WaitFor(t, 20*time.Second, "entry expired", func() (bool, string) {
		l := s.ecaList(t, key)
		return len(l) == 0, fmt.Sprint(l)
	})
	if time.Now().Before(exp) {
		t.Fatalf("entry unlisted before its expiry %v", exp)
	}
	if a, m := s.ecaStatus(t, key); a != 0 || m != 0 {
		t.Errorf("status after expiry: %d active, %d matches", a, m)
	}
	s.call(t, "DELETE", "/v1/eca/watchlist/"+fmt.Sprint(int64(d.num(t, "id"))), key, nil).wantErr(t, 404, "not_found")
	name := "Fresh " + word("f")
	id2 := s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"token_name": name}).wantOK(t, 201).num(t, "id")
	w := s.streamDial(t, "eca", key)
	old := ecaLaunch("token_launched", solAddr(), solAddr(), tick, "Old Ticker")
	fresh := ecaLaunch("token_launched", solAddr(), solAddr(), "FRS", name)
	s.send(t, old, fresh)
	wantMatch(t, w.Next(t), id2, fresh, "token_name")
}

// testECAMatchesTTL (short server, matches listed 3 s): a match is listed
// for the configured time, then no more; total_matches keeps it.
func testECAMatchesTTL(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "eca"}).key
	mint := solAddr()
	id := s.call(t, "POST", "/v1/eca/watchlist", key, map[string]any{"contract_address": mint}).wantOK(t, 201).num(t, "id")
	w := s.streamDial(t, "eca", key)
	l := ecaLaunch("token_launched", mint, solAddr(), "TTL", "Time To Live")
	s.send(t, l)
	d := wantMatch(t, w.Next(t), id, l, "contract_address")
	matchedAt := wantISOTime(t, "matched_at", d.str(t, "matched_at"))
	s.afterSync(t, "match listed", func() (bool, string) {
		n := len(s.call(t, "GET", "/v1/eca/matches", key, nil).wantArray(t, 200))
		return n == 1, fmt.Sprint(n)
	})
	testkit.WaitFor(t, 20*time.Second, "match no longer listed", func() (bool, string) {
		n := len(s.call(t, "GET", "/v1/eca/matches", key, nil).wantArray(t, 200))
		return n == 0, fmt.Sprint(n)
	})
	if time.Since(matchedAt) < 3*time.Second {
		t.Errorf("match unlisted %v after matched_at, before the configured 3s", time.Since(matchedAt))
	}
	if _, m := s.ecaStatus(t, key); m != 1 {
		t.Errorf("total_matches %d after the listing time, want 1", m)
	}
}
