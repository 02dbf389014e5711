package casearch

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

var reqNow = time.Date(2026, 5, 10, 12, 30, 0, 0, time.UTC)

func members(t *testing.T, body string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return m
}

func TestParseTime(t *testing.T) {
	day := time.Date(2026, 5, 9, 0, 0, 0, 0, time.UTC).UnixMilli()
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2026-05-09", day, true},
		{"2026-05-09T00:00:00Z", day, true},
		{"2026-05-09T02:00:00+02:00", day, true},
		{"2026-05-09T00:00:00.123456789Z", day + 123, true},
		{"1778284800", day, true},             // seconds
		{"1778284800000", day, true},          // milliseconds
		{"00001778284800", day, true},         // leading zeros: still 10 significant digits
		{"99999999999", 99999999999000, true}, // 11 digits: seconds
		{"100000000000", 100000000000, true},  // 12 digits: milliseconds
		{"0", 0, true},
		{"253402300799999", 253402300799999, true}, // 9999-12-31T23:59:59.999Z
		{"253402300800000", 0, false},
		{"99999999999999999", 0, false},
		{"99999999999999999999", 0, false},
		{"2026-13-01", 0, false},
		{"2026-5-9", 0, false},
		{"yesterday", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
		{"2026-05-09 00:00:00", 0, false},
	} {
		got, ok := ParseTime(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func wantBadRequest(t *testing.T, body string, err error) {
	t.Helper()
	var api *protocol.APIError
	if !errors.As(err, &api) || api.Status != 400 || api.Code != protocol.CodeBadRequest {
		t.Errorf("%s: err %v, want 400 bad_request", body, err)
	}
}

func TestParseRequestErrors(t *testing.T) {
	old := reqNow.Add(-48 * time.Hour).Format(time.RFC3339)
	for _, body := range []string{
		`{"query":""}`,
		`{"query":"   \t\n "}`,
		`{"query":null}`,
		`{"query":42}`,
		`{"query":["x"]}`,
		`{"query":"` + strings.Repeat("a", 201) + `"}`,
		`{"query":"` + strings.Repeat("é", 101) + `"}`, // 202 bytes
		`{"query":"x","since":"soon"}`,
		`{"query":"x","since":true}`,
		`{"query":"x","since":-5}`,
		`{"query":"x","until":{}}`,
		`{"query":"x","until":"` + old + `"}`,
		`{"query":"x","since":"2026-05-09","until":"2026-05-09"}`,
		`{"query":"x","since":"2026-05-10","until":"2026-05-09"}`,
	} {
		_, err := ParseRequest(members(t, body), reqNow, 24*time.Hour)
		wantBadRequest(t, body, err)
	}
	if _, err := ParseRequest(members(t, `{"q":"x"}`), reqNow, 24*time.Hour); !errors.Is(err, ErrNoQuery) {
		t.Errorf("no query member: %v, want ErrNoQuery", err)
	}
}

func TestParseRequestWindow(t *testing.T) {
	dayAgo := reqNow.Add(-24 * time.Hour).UnixMilli()
	for _, c := range []struct {
		body               string
		since, until       int64
		sinceRaw, untilRaw string
		text               string
	}{
		{`{"query":"  gm  "}`, dayAgo, math.MaxInt64, "", "", "gm"},
		{`{"query":"` + strings.Repeat("a", 200) + `"}`, dayAgo, math.MaxInt64, "", "", strings.Repeat("a", 200)},
		{`{"query":"gm","since":null,"until":""}`, dayAgo, math.MaxInt64, "", "", "gm"},
		{`{"query":"gm","since":"2026-05-01"}`, time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), math.MaxInt64, `"2026-05-01"`, "", "gm"},
		{`{"query":"gm","since":1778284800,"until":"1778371200000"}`, 1778284800000, 1778371200000, `1778284800`, `"1778371200000"`, "gm"},
		// until within the day needs no since; the window starts a day ago.
		{`{"query":"gm","until":"2026-05-10T00:00:00Z"}`, dayAgo, time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC).UnixMilli(), "", `"2026-05-10T00:00:00Z"`, "gm"},
		// since in the future: valid, and matches nothing later on.
		{`{"query":"gm","since":"2027-01-01"}`, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), math.MaxInt64, `"2027-01-01"`, "", "gm"},
	} {
		r, err := ParseRequest(members(t, c.body), reqNow, 24*time.Hour)
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		if r.Since != c.since || r.Until != c.until || string(r.SinceRaw) != c.sinceRaw || string(r.UntilRaw) != c.untilRaw || r.Text != c.text {
			t.Errorf("%s: since %d until %d raw %q %q text %q; want %d %d %q %q %q", c.body, r.Since, r.Until,
				r.SinceRaw, r.UntilRaw, r.Text, c.since, c.until, c.sinceRaw, c.untilRaw, c.text)
		}
		if r.After != nil {
			t.Errorf("%s: a cursor without one", c.body)
		}
	}
}

func TestCursor(t *testing.T) {
	r, err := ParseRequest(members(t, `{"query":"gm","since":"2026-05-01"}`), reqNow, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	k := Key{At: 1778284800123, Tie: 1860000000000000001}
	cur := r.EncodeCursor(k)
	parse := func(body string) *Key {
		t.Helper()
		r, err := ParseRequest(members(t, body), reqNow, 24*time.Hour)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return r.After
	}
	if got := parse(`{"query":"gm","since":"2026-05-01","cursor":"` + cur + `"}`); got == nil || *got != k {
		t.Fatalf("cursor round trip: %v, want %v", got, k)
	}
	// Trimming the query does not change what the cursor belongs to.
	if got := parse(`{"query":" gm ","since":"2026-05-01","cursor":"` + cur + `"}`); got == nil || *got != k {
		t.Errorf("trimmed query: cursor not recognised")
	}
	for _, body := range []string{
		`{"query":"gn","since":"2026-05-01","cursor":"` + cur + `"}`,                      // another query
		`{"query":"gm","since":"2026-05-02","cursor":"` + cur + `"}`,                      // another since
		`{"query":"gm","cursor":"` + cur + `"}`,                                           // since dropped
		`{"query":"gm","since":"2026-05-01","until":"2026-05-10","cursor":"` + cur + `"}`, // until added
		`{"query":"gm","since":"2026-05-01","cursor":"` + cur[:len(cur)-1] + `"}`,         // cut
		`{"query":"gm","since":"2026-05-01","cursor":"` + cur + `A"}`,
		`{"query":"gm","since":"2026-05-01","cursor":"!!!!!!!!!!!!!!!!!!!!!!!!!!!!"}`,
		`{"query":"gm","since":"2026-05-01","cursor":12}`,
		`{"query":"gm","since":"2026-05-01","cursor":null}`,
		`{"query":"gm","since":"2026-05-01","cursor":""}`,
	} {
		if got := parse(body); got != nil {
			t.Errorf("%s: cursor recognised as %v; want a restart from the newest", body, got)
		}
	}
	// A changed version byte is refused.
	b := []byte(cur)
	b[0] = 'B'
	if got := parse(`{"query":"gm","since":"2026-05-01","cursor":"` + string(b) + `"}`); got != nil {
		t.Errorf("other version recognised")
	}
}

func TestRequestBounds(t *testing.T) {
	r := Request{Since: 10, Until: math.MaxInt64}
	if b := r.Bounds(); b.Upper != NoUpper || b.Since != 10 {
		t.Errorf("open bounds %+v", b)
	}
	r.Until = 500
	if b := r.Bounds(); b.Upper != (Key{500, math.MinInt64}) {
		t.Errorf("until bounds %+v", b)
	}
	r.After = &Key{400, 7}
	if b := r.Bounds(); b.Upper != (Key{400, 7}) {
		t.Errorf("cursor bounds %+v", b)
	}
	r.After = &Key{900, 7} // a cursor beyond until does not widen the window
	if b := r.Bounds(); b.Upper != (Key{500, math.MinInt64}) {
		t.Errorf("cursor past until %+v", b)
	}
}
