package casearch

import (
	"bytes"
	"errors"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Spec 2 "CA Search" request limits.
const (
	MaxQueryBytes = 200
	PageSize      = 200 // posts per call
	MaxOriginals  = 30  // replies per call that get their `original`
)

// ErrNoQuery: the body has no `query` field (a plain-text 422, not an
// envelope).
var ErrNoQuery = errors.New("body has no \"query\" field")

// Request is a decoded, validated search call.
type Request struct {
	Query Query
	// Text is the trimmed query.
	Text string
	// Since and Until bound the window (epoch ms; Until exclusive,
	// math.MaxInt64 when open).
	Since, Until int64
	// After is the cursor's position; nil starts from the newest post.
	After *Key
	// SinceRaw and UntilRaw are the values as supplied (JSON), for the echo;
	// nil when not supplied.
	SinceRaw, UntilRaw []byte
	// fp ties cursors to the query, since and until they were made for.
	fp uint32
}

// Bounds of the request for Index.Search.
func (r *Request) Bounds() Bounds {
	up := NoUpper
	if r.Until != math.MaxInt64 {
		up = Key{r.Until, math.MinInt64}
	}
	if r.After != nil && r.After.Less(up) {
		up = *r.After
	}
	return Bounds{Since: r.Since, Upper: up}
}

// ParseRequest validates the members of a request body (spec 2 "CA
// Search"). It returns ErrNoQuery when `query` is absent, and a 400
// *protocol.APIError for an invalid member. window is the default window
// (24 hours); now is the time of the call.
//
//   - query: a string of 1 to 200 bytes once white space is trimmed.
//   - since, until: RFC 3339, YYYY-MM-DD (midnight UTC) or a unix time in
//     seconds or milliseconds (a number of 11 digits or fewer is seconds,
//     12 or more milliseconds; as a string or a JSON number). null or ""
//     is the same as absent. until is exclusive; one older than the window
//     needs since; since must be before until. Without since the window
//     starts window before now.
//   - cursor: a next_cursor made for the same query, since and until; any
//     other value (or null) starts from the newest post.
func ParseRequest(f map[string]json.RawMessage, now time.Time, window time.Duration) (Request, error) {
	var r Request
	raw, ok := f["query"]
	if !ok {
		return r, ErrNoQuery
	}
	var q string
	if err := json.Unmarshal(raw, &q); err != nil || isNullJSON(raw) {
		return r, protocol.BadRequest("query must be a string")
	}
	q = strings.TrimSpace(q)
	switch {
	case q == "":
		return r, protocol.BadRequest("query is empty")
	case len(q) > MaxQueryBytes:
		return r, protocol.BadRequest("query is longer than 200 bytes")
	}
	r.Text, r.Query = q, ParseQuery(q)

	since, hasSince, err := timeMember(f, "since")
	if err != nil {
		return r, err
	}
	until, hasUntil, err := timeMember(f, "until")
	if err != nil {
		return r, err
	}
	floor := now.Add(-window).UnixMilli()
	r.Since, r.Until = floor, math.MaxInt64
	if hasSince {
		r.Since, r.SinceRaw = since, bytes.TrimSpace(f["since"])
	}
	if hasUntil {
		r.Until, r.UntilRaw = until, bytes.TrimSpace(f["until"])
		if !hasSince && until < floor {
			return r, protocol.BadRequest("until is older than 24 hours: send since as well")
		}
	}
	if hasSince && hasUntil && since >= until {
		return r, protocol.BadRequest("since must be before until")
	}
	r.fp = fingerprint(r.Text, r.SinceRaw, r.UntilRaw)
	if c, ok := f["cursor"]; ok {
		var s string
		if json.Unmarshal(c, &s) == nil {
			if k, ok := DecodeCursor(s, r.fp); ok {
				r.After = &k
			}
		}
	}
	return r, nil
}

func isNullJSON(raw []byte) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// timeMember reads an optional time member; absent, null and "" are absent.
func timeMember(f map[string]json.RawMessage, name string) (int64, bool, error) {
	raw, ok := f[name]
	if !ok || isNullJSON(raw) {
		return 0, false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		// A JSON number: unix seconds or milliseconds.
		t := bytes.TrimSpace(raw)
		if len(t) == 0 || t[0] < '0' || t[0] > '9' {
			return 0, false, protocol.BadRequest(name + " must be a time: RFC 3339, YYYY-MM-DD or unix seconds or milliseconds")
		}
		s = string(t)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false, nil
	}
	ms, ok := ParseTime(s)
	if !ok {
		return 0, false, protocol.BadRequest(name + " must be a time: RFC 3339, YYYY-MM-DD or unix seconds or milliseconds")
	}
	return ms, true, nil
}

// Years a time may have: RFC 3339 can spell years 0000 to 9999.
var (
	minTimeMS = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	maxTimeMS = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() - 1
)

// ParseTime reads a since/until value as epoch milliseconds: RFC 3339
// (fractions of a millisecond are cut), YYYY-MM-DD (midnight UTC), or
// decimal digits: unix seconds when 11 digits or fewer, else milliseconds.
func ParseTime(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	if allDigits(s) {
		if len(s) > 16 { // past year 9999 in milliseconds
			return 0, false
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		if len(strings.TrimLeft(s, "0")) <= 11 {
			v *= 1000
		}
		return v, v <= maxTimeMS
	}
	if len(s) == len("2006-01-02") {
		t, err := time.Parse("2006-01-02", s)
		return t.UnixMilli(), err == nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	ms := t.UnixMilli()
	return ms, ms >= minTimeMS && ms <= maxTimeMS
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func fingerprint(q string, since, until []byte) uint32 {
	h := fnv.New32a()
	h.Write([]byte(q))
	h.Write([]byte{0})
	h.Write(since)
	h.Write([]byte{0})
	h.Write(until)
	return h.Sum32()
}
