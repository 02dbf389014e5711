package main

// End-to-end tests of Trending, PumpFun, ECA and Search Alerts (spec 3):
// the real binary on both stores, over real HTTP and WebSockets.

import (
	"crypto/rand"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"
)

// Timings of the products2 servers. The main server shortens what Search
// Alerts tests wait for (the interval options 1m to 6h stand for 1 s to
// 1 h; 6h never flushes within a test); the short server shortens the ECA
// entry expiry and the matches' listing time. Both shorten the REST rate
// window (20 requests per window and account) so that tests that poll or
// make many calls are not rate-limited.
const (
	p2MainTimings  = "SAIntervals=1s|2s|3s|4s|5s|1h,RateWindow=10ms"
	p2ShortTimings = "ECAExpiry=3s,ECAMatchesTTL=3s,RateWindow=10ms"
)

// TestE2EProducts2 runs the products2 suite against one shared server per
// store; every subtest makes its own accounts, wallets, words and tokens.
func TestE2EProducts2(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServerEnv(t, serverOpts{dbURL: m.dbURL(t)}, testTimingsEnv+"="+p2MainTimings)
		for _, c := range []struct {
			name string
			f    func(*testing.T, *server)
		}{
			{"Auth", testP2Auth},
			{"StoredWebhooks", testP2Webhooks},
			{"TrendingCategories", testTrendingCategories},
			{"TrendingStream", testTrendingStream},
			{"PFTargets", testPFTargets},
			{"PFCeilings", testPFCeilings},
			{"PFStream", testPFStream},
			{"PFEventsLast50", testPFEventsLast50},
			{"ECAWatchlist", testECAWatchlist},
			{"ECAMatch", testECAMatch},
			{"ECAMatchKinds", testECAMatchKinds},
			{"SAQueries", testSAQueries},
			{"SALimit", testSALimit},
			{"SASchedule", testSASchedule},
		} {
			t.Run(c.name, func(t *testing.T) { c.f(t, s) })
		}
	})
}

// TestE2EProducts2Timed runs the ECA tests that wait for an expiry or for
// the matches' listing time, on a server where both are 3 seconds.
func TestE2EProducts2Timed(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServerEnv(t, serverOpts{dbURL: m.dbURL(t)}, testTimingsEnv+"="+p2ShortTimings)
		t.Run("ECAExpiry", func(t *testing.T) { t.Parallel(); testECAExpiry(t, s) })
		t.Run("ECAMatchesTTL", func(t *testing.T) { t.Parallel(); testECAMatchesTTL(t, s) })
	})
}

// --- helpers ---

// p2Do sends a request with the key as bearer and, when body is not nil, a
// JSON content type.
func (s *server) p2Do(t *testing.T, method, path, key string, body any) resp {
	t.Helper()
	h := bearer(key)
	if body != nil {
		h["Content-Type"] = "application/json"
	}
	if v, ok := body.(map[string]any); ok {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		body = b
	}
	return s.do(t, method, path, h, body)
}

// wantArray asserts a success envelope whose data is an array.
func (r resp) wantArray(t *testing.T, status int) []json.RawMessage {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d", r, r.status, status)
	}
	wantJSONType(t, r)
	env := decodeObj(t, r.body, r.String())
	env.wantKeys(t, r.String()+" envelope", "ok", "data")
	if !env.boolean(t, "ok") {
		t.Fatalf("%s: ok is not true", r)
	}
	return env.array(t, "data")
}

// p2Dial opens a product WebSocket with the key.
func (s *server) p2Dial(t *testing.T, product, key string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL("/v1/"+product+"/ws?api_key="+key), "")
	if err != nil {
		t.Fatalf("dial /v1/%s/ws: %v (%s)", product, err, respText(r))
	}
	return w
}

// p2Refused asserts that the product WebSocket refuses key with a
// plain-text 401 before the upgrade.
func (s *server) p2Refused(t *testing.T, product, query string) {
	t.Helper()
	_, r, err := dialFrom(t, s.wsURL("/v1/"+product+"/ws"+query), "")
	if err == nil || r == nil {
		t.Fatalf("/v1/%s/ws%s: upgraded, want 401", product, query)
	}
	defer r.Body.Close()
	if r.StatusCode != 401 {
		t.Fatalf("/v1/%s/ws%s: HTTP %d, want 401", product, query, r.StatusCode)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("/v1/%s/ws%s: Content-Type %q, want text/plain", product, query, ct)
	}
}

// p2Frame decodes a product frame, asserts {type, data} with the type and
// returns data.
func p2Frame(t *testing.T, b []byte, typ string) obj {
	t.Helper()
	f := decodeObj(t, b, "frame")
	f.wantKeys(t, "frame "+string(b), "type", "data")
	if got := f.str(t, "type"); got != typ {
		t.Fatalf("frame type %q, want %q: %s", got, typ, b)
	}
	return f.object(t, "data")
}

// nextWhere returns the next frame for which keep holds, skipping others
// (frames of other tests on broadcast streams).
func (w *wsClient) nextWhere(t *testing.T, keep func(b []byte) bool) []byte {
	t.Helper()
	for {
		if b := w.next(t); keep(b) {
			return b
		}
	}
}

const base58Chars = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// solAddr is a random Solana address: 32 random bytes in base58.
func solAddr() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[0] |= 1 // no leading zero byte: always 43 or 44 characters
	n := new(big.Int).SetBytes(b[:])
	var out []byte
	mod, base := new(big.Int), big.NewInt(58)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, base58Chars[mod.Int64()])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// word is a unique lowercase word for Search Alerts and ECA tests.
func word(prefix string) string { return prefix + strings.ToLower(randomHex(5)) }

// isoMillisRe-like check: an ISO 8601 UTC time with milliseconds.
func wantISOTime(t *testing.T, what, s string) time.Time {
	t.Helper()
	tm, err := time.Parse("2006-01-02T15:04:05.000Z07:00", s)
	if err != nil || !strings.HasSuffix(s, "Z") {
		t.Fatalf("%s = %q, want ISO 8601 UTC with milliseconds", what, s)
	}
	return tm
}

// wantJSON asserts that raw equals want once both are decoded.
func wantJSON(t *testing.T, what string, raw json.RawMessage, want any) {
	t.Helper()
	var got, exp any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(b, &exp)
	gb, _ := json.Marshal(got)
	eb, _ := json.Marshal(exp)
	if string(gb) != string(eb) {
		t.Errorf("%s\n got %s\nwant %s", what, gb, eb)
	}
}

func parseRFC3339(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }
