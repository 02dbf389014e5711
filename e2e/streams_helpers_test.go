package e2e

// Helpers of the tests of the four stream products of spec 3: Trending,
// PumpFun, ECA and Search Alerts.

import (
	"crypto/rand"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

// Timings of the stream products' servers. The main one shortens what
// Search Alerts tests wait for (the interval options 1m to 6h stand for 1 s
// to 1 h; 6h never flushes within a test); the ECA one shortens the entry
// expiry and the matches' listing time. Both shorten the REST rate window
// (20 requests per window and account) to a microsecond so that tests that
// make many calls are never rate-limited, however fast they run.
func streamsMain(c *engine.Config) {
	c.Timings.SAIntervals = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, time.Hour}
	c.Timings.RateWindow = time.Microsecond
}

func ecaShort(c *engine.Config) {
	c.Timings.ECAExpiry, c.Timings.ECAMatchesTTL = 3*time.Second, 3*time.Second
	c.Timings.RateWindow = time.Microsecond
}

// TestStreams runs what the four stream products (Trending, PumpFun, ECA,
// Search Alerts) share: auth and the stored webhook.
func TestStreams(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: streamsMain})
		subtests{
			{"Auth", testStreamsAuth},
			{"StoredWebhooks", testStreamsWebhooks},
		}.run(t, s)
	})
}

// --- helpers ---

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

// streamDial opens a product WebSocket with the key.
func (s *server) streamDial(t *testing.T, product, key string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL("/v1/"+product+"/ws?api_key="+key), "")
	if err != nil {
		t.Fatalf("dial /v1/%s/ws: %v (%s)", product, err, testkit.ResponseText(r))
	}
	return w
}

// streamRefused asserts that the product WebSocket refuses key with a
// plain-text 401 before the upgrade.
func (s *server) streamRefused(t *testing.T, product, query string) {
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

// streamFrame decodes a product frame, asserts {type, data} with the type and
// returns data.
func streamFrame(t *testing.T, b []byte, typ string) obj {
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
		if b := w.Next(t); keep(b) {
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
func word(prefix string) string { return prefix + strings.ToLower(testkit.RandomHex(5)) }

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
