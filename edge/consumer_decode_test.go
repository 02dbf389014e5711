package edge

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

func xgMembers(t testing.TB, body string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("test body %s: %v", body, err)
	}
	return m
}

// status of an error from a decoder: 400/422 and so on, 0 for nil.
func xgStatus(err error) int {
	var ae *protocol.APIError
	var pe *parseError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ae):
		return ae.Status
	case errors.As(err, &pe):
		return pe.Status
	}
	return -1
}

func TestDecodeHandles(t *testing.T) {
	for _, c := range []struct {
		body   string
		want   string
		status int
	}{
		{`{"handles":["Whale","@whale","@Degen_1"]}`, "[whale degen_1]", 0},
		{`{}`, "", 422},
		{`{"handles":"whale"}`, "", 400},
		{`{"handles":null}`, "", 400},
		{`{"handles":[]}`, "", 400},
		{`{"handles":["ok","bad handle"]}`, "", 400},
		{`{"handles":["ok",7]}`, "", 400},
		{`{"handles":[""]}`, "", 400},
		{`{"handles":["@"]}`, "", 400},
	} {
		got, err := decodeHandles(xgMembers(t, c.body), "handles", 25)
		if xgStatus(err) != c.status || (err == nil && fmt.Sprint(got) != c.want) {
			t.Errorf("%s: %v %v, want %s / %d", c.body, got, err, c.want, c.status)
		}
	}
	many := `{"handles":[`
	for i := range 26 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf(`"h%d"`, i)
	}
	if _, err := decodeHandles(xgMembers(t, many+"]}"), "handles", 25); xgStatus(err) != 400 {
		t.Errorf("26 handles: %v", err)
	}
}

func TestDecodeKeywords(t *testing.T) {
	long := `"` + strings.Repeat("é", maxKeywordLen+1) + `"`
	max := `"` + strings.Repeat("é", maxKeywordLen) + `"`
	for _, c := range []struct {
		body   string
		want   string
		status int
	}{
		{`{"keywords":[" sol ","SOL","pump it","ünïcödé"]}`, "[sol pump it ünïcödé]", 0},
		{`{"keywords":[]}`, "[]", 0},
		{`{"keywords":[` + max + `]}`, "[" + strings.Repeat("é", maxKeywordLen) + "]", 0},
		{`{}`, "", 422},
		{`{"keywords":[""]}`, "", 400},
		{`{"keywords":[` + long + `]}`, "", 400},
		{`{"keywords":[1]}`, "", 400},
		{`{"keywords":{"a":1}}`, "", 400},
		{`{"keywords":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u"]}`, "", 400},
	} {
		got, err := decodeKeywords(xgMembers(t, c.body))
		if xgStatus(err) != c.status || (err == nil && fmt.Sprint(got) != c.want) {
			t.Errorf("%s: %v %v, want %s / %d", c.body, got, err, c.want, c.status)
		}
	}
}

func TestDecodeWebhookRequest(t *testing.T) {
	for _, c := range []struct {
		body   string
		want   string
		status int
	}{
		{`{"url":"https://a.example/h"}`, "https://a.example/h [tweet] [] []", 0},
		{`{"url":" https://a.example/h ","events":["tweet","tweet"],"filter_handles":["@Whale"],"filter_keywords":["BTC","btc"," eth "]}`,
			"https://a.example/h [tweet] [whale] [BTC eth]", 0},
		{`{"url":"https://a.example/h","events":null,"filter_handles":null}`, "https://a.example/h [tweet] [] []", 0},
		{`{}`, "", 422},
		{`{"url":5}`, "", 400},
		{`{"url":null}`, "", 400},
		{`{"url":""}`, "", 400},
		{`{"url":"https://a.example/h","events":["follow"]}`, "", 400},
		{`{"url":"https://a.example/h","filter_handles":["bad handle"]}`, "", 400},
		{`{"url":"https://a.example/h","filter_keywords":[""]}`, "", 400},
		{`{"url":"https://a.example/h","filter_keywords":"x"}`, "", 400},
	} {
		r, err := decodeWebhookRequest(xgMembers(t, c.body))
		got := fmt.Sprint(r.url, " ", r.events, " ", xgNz(r.handles), " ", xgNz(r.keyword))
		if xgStatus(err) != c.status || (err == nil && got != c.want) {
			t.Errorf("%s: %q %v, want %q / %d", c.body, got, err, c.want, c.status)
		}
	}
}

func xgNz(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestOptionalBools(t *testing.T) {
	b, err := xgOptionalBools(xgMembers(t, `{"a":true,"b":null,"x":1}`), "a", "b", "c")
	if err != nil || b["a"] == nil || !*b["a"] || b["b"] != nil || b["c"] != nil {
		t.Fatalf("%v %v", b, err)
	}
	if _, err := xgOptionalBools(xgMembers(t, `{"a":"yes"}`), "a"); xgStatus(err) != 400 {
		t.Errorf("string accepted as boolean: %v", err)
	}
}

func TestParseBefore(t *testing.T) {
	for in, want := range map[string]string{
		"2026-01-02T15:04:05Z":          "2026-01-02T15:04:05Z",
		"2026-01-02T15:04:05.123+02:00": "2026-01-02T13:04:05.123Z",
		"2026-01-02T15:04:05":           "2026-01-02T15:04:05Z",
		"2026-01-02":                    "2026-01-02T00:00:00Z",
	} {
		got, ok := xgParseBefore(in)
		if !ok || got.UTC().Format(time.RFC3339Nano) != want {
			t.Errorf("parseBefore(%q) = %v %v, want %s", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "1700000000", "2026-13-01"} {
		if _, ok := xgParseBefore(bad); ok {
			t.Errorf("parseBefore(%q) accepted", bad)
		}
	}
}

// FuzzConsumerBodies runs every hand-written decoder of the consumer routes
// over arbitrary JSON objects: none may panic, and what they accept holds
// their rules.
func FuzzConsumerBodies(f *testing.F) {
	for _, s := range []string{
		`{"handles":["Whale","@x"]}`, `{"keywords":["a"]}`, `{"url":"https://a/","events":["tweet"],"filter_handles":["a"],"filter_keywords":["b"]}`,
		`{"exclude_replies":true,"auto_topics":null}`, `{"muted":false}`, `{"handles":[1,{},null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		if hs, err := decodeHandles(m, "handles", maxHandlesPerAdd); err == nil {
			if len(hs) == 0 || len(hs) > maxHandlesPerAdd {
				t.Fatalf("handles %v accepted", hs)
			}
			for _, h := range hs {
				if !protocol.ValidHandle(h) {
					t.Fatalf("invalid handle %q accepted", h)
				}
			}
		}
		if kw, err := decodeKeywords(m); err == nil && len(kw) > maxKeywords {
			t.Fatalf("%d keywords accepted", len(kw))
		}
		if r, err := decodeWebhookRequest(m); err == nil && (r.url == "" || len(r.events) != 1) {
			t.Fatalf("webhook request %+v accepted", r)
		}
		_, _ = xgOptionalBools(m, "exclude_replies", "exclude_reposts", "exclude_quotes")
	})
}

func FuzzParseBefore(f *testing.F) {
	f.Add("2026-01-02T15:04:05Z")
	f.Add("2026-01-02")
	f.Fuzz(func(t *testing.T, s string) { _, _ = xgParseBefore(s) })
}
