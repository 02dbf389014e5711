package casearch

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// FuzzParseRequest: any JSON object body either fails as documented (no
// query, or a 400) or yields a request that keeps the rules.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"query":"$PEPE"}`,
		`{"query":"` + solCA + `","since":"2026-05-01","until":"2026-05-10T00:00:00Z"}`,
		`{"query":"gm","since":1778284800,"until":"1778371200000","cursor":"AQAAAZ6u8YAAAAAAAAAAAAAAAAAA"}`,
		`{"query":"  ","since":null}`,
		`{"query":"x","until":"2020-01-01"}`,
		`{"cursor":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		r, err := ParseRequest(m, reqNow, 24*time.Hour)
		if err != nil {
			var api *protocol.APIError
			if !errors.Is(err, ErrNoQuery) && !(errors.As(err, &api) && api.Status == 400 && api.Code == protocol.CodeBadRequest) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if r.Text == "" || len(r.Text) > MaxQueryBytes || strings.TrimSpace(r.Text) != r.Text {
			t.Fatalf("query %q accepted", r.Text)
		}
		if r.Since >= r.Until {
			t.Fatalf("since %d not before until %d", r.Since, r.Until)
		}
		if r.SinceRaw == nil && r.Since != reqNow.Add(-24*time.Hour).UnixMilli() {
			t.Fatalf("default since %d", r.Since)
		}
		if r.SinceRaw == nil && r.Until != math.MaxInt64 && r.Until < reqNow.Add(-24*time.Hour).UnixMilli() {
			t.Fatalf("old until %d accepted without since", r.Until)
		}
		for _, raw := range [][]byte{r.SinceRaw, r.UntilRaw} {
			if raw != nil && !json.Valid(raw) {
				t.Fatalf("echo %q is not JSON", raw)
			}
		}
		if r.After != nil {
			if c := r.EncodeCursor(*r.After); c != string(unquote(m["cursor"])) {
				t.Fatalf("recognised cursor %s re-encodes as %s", m["cursor"], c)
			}
		}
	})
}

func unquote(raw json.RawMessage) []byte {
	var s string
	_ = json.Unmarshal(raw, &s)
	return []byte(s)
}

// FuzzParseTime: accepted values are inside years 0000 to 9999, and unix
// values read back the same.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-05-09", "2026-05-09T00:00:00.5+02:00", "1778284800", "1778284800000", "0", "9999999999999999", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, ok := ParseTime(s)
		if !ok {
			return
		}
		if ms < minTimeMS || ms > maxTimeMS {
			t.Fatalf("%q -> %d out of range", s, ms)
		}
		if allDigits(s) {
			tm := time.UnixMilli(ms)
			if !strings.HasPrefix(s, "0") && tm.UnixMilli() != ms {
				t.Fatalf("%q -> %d", s, ms)
			}
		}
	})
}

// FuzzParseQuery: terms are non-empty, normalised and distinct; the kind
// agrees with them.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"$PEPE", "PEPE", solCA, evmCA, "CA:" + solCA + " moon!", "naïve ÜBER", "$", "a b c a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		pq := ParseQuery(q)
		seen := map[Term]bool{}
		for _, tm := range pq.Terms {
			if tm.Text == "" || seen[tm] {
				t.Fatalf("%q: empty or repeated term %q", q, tm.Key())
			}
			seen[tm] = true
			switch tm.Kind {
			case Contract:
				if !protocol.IsContract(tm.Text) || protocol.IsEVMAddress(tm.Text) && tm.Text != strings.ToLower(tm.Text) {
					t.Fatalf("%q: contract term %q", q, tm.Text)
				}
			case Cashtag:
				if !isTicker(tm.Text) || tm.Text != strings.ToUpper(tm.Text) {
					t.Fatalf("%q: cashtag term %q", q, tm.Text)
				}
			case Word:
				if len(tm.Text) > MaxWordBytes || !utf8.ValidString(tm.Text) && utf8.ValidString(q) {
					t.Fatalf("%q: word term %q", q, tm.Text)
				}
			default:
				t.Fatalf("%q: kind %q", q, tm.Kind)
			}
		}
		if (len(pq.Terms) == 0) != (pq.Kind == QueryEmpty) {
			t.Fatalf("%q: kind %s with %d terms", q, pq.Kind, len(pq.Terms))
		}
	})
}

// FuzzDecodeCursor: a decoded cursor re-encodes to the same text; encoding
// then decoding any key gives the key back.
func FuzzDecodeCursor(f *testing.F) {
	f.Add("AQAAAZ6u8YAAAAAAAAAAAAAAAAAA", int64(1), int64(2), uint32(3))
	f.Fuzz(func(t *testing.T, s string, at, tie int64, fp uint32) {
		r := Request{fp: fp}
		if k, ok := DecodeCursor(s, fp); ok && r.EncodeCursor(k) != s {
			t.Fatalf("%q decodes to %v, which encodes as %q", s, k, r.EncodeCursor(k))
		}
		k := Key{at, tie}
		if got, ok := DecodeCursor(r.EncodeCursor(k), fp); !ok || got != k {
			t.Fatalf("round trip of %v: %v %v", k, got, ok)
		}
		if _, ok := DecodeCursor(r.EncodeCursor(k), fp+1); ok {
			t.Fatalf("cursor accepted for another fingerprint")
		}
	})
}
