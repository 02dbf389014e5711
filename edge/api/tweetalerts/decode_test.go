package tweetalerts

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func members(t testing.TB, body string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("test body %s: %v", body, err)
	}
	return m
}

// status of an error from a decoder: 400/422 and so on, 0 for nil.
func status(err error) int {
	var ae *protocol.APIError
	var pe *httpkit.ParseError
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
		got, err := decodeHandles(members(t, c.body), "handles", 25)
		if status(err) != c.status || (err == nil && fmt.Sprint(got) != c.want) {
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
	if _, err := decodeHandles(members(t, many+"]}"), "handles", 25); status(err) != 400 {
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
		got, err := decodeKeywords(members(t, c.body))
		if status(err) != c.status || (err == nil && fmt.Sprint(got) != c.want) {
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
		r, err := decodeWebhookRequest(members(t, c.body))
		got := fmt.Sprint(r.url, " ", r.events, " ", nz(r.handles), " ", nz(r.keyword))
		if status(err) != c.status || (err == nil && got != c.want) {
			t.Errorf("%s: %q %v, want %q / %d", c.body, got, err, c.want, c.status)
		}
	}
}

func nz(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestOptionalBools(t *testing.T) {
	b, err := optionalBools(members(t, `{"a":true,"b":null,"x":1}`), "a", "b", "c")
	if err != nil || b["a"] == nil || !*b["a"] || b["b"] != nil || b["c"] != nil {
		t.Fatalf("%v %v", b, err)
	}
	if _, err := optionalBools(members(t, `{"a":"yes"}`), "a"); status(err) != 400 {
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
		got, ok := parseBefore(in)
		if !ok || got.UTC().Format(time.RFC3339Nano) != want {
			t.Errorf("parseBefore(%q) = %v %v, want %s", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "1700000000", "2026-13-01"} {
		if _, ok := parseBefore(bad); ok {
			t.Errorf("parseBefore(%q) accepted", bad)
		}
	}
}

// FuzzBodies runs every hand-written decoder of the Tweet Alerts routes
// over arbitrary JSON objects: none may panic, and what they accept holds
// their rules.
func FuzzBodies(f *testing.F) {
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
		_, _ = optionalBools(m, "exclude_replies", "exclude_reposts", "exclude_quotes")
	})
}

func FuzzParseBefore(f *testing.F) {
	f.Add("2026-01-02T15:04:05Z")
	f.Add("2026-01-02")
	f.Fuzz(func(t *testing.T, s string) { _, _ = parseBefore(s) })
}
