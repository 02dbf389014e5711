package admin

import (
	"testing"
	"time"

	json "github.com/goccy/go-json"
)

func TestDecodeRange(t *testing.T) {
	for _, c := range []struct {
		body   string
		status int // 0: accepted
		states int
	}{
		{`{"since":"2026-01-02T03:04:05Z"}`, 0, 0},
		{`{"since":"2026-01-02T03:04:05Z","until":"2026-01-03T00:00:00Z","states":["delivered","failed"]}`, 0, 2},
		{`{"since":"2026-01-02T03:04:05Z","until":null}`, 0, 0},
		{`{}`, 422, 0},
		{`{"since":"yesterday"}`, 400, 0},
		{`{"since":3}`, 400, 0},
		{`{"since":"2026-01-02T03:04:05Z","until":"2026-01-01T00:00:00Z"}`, 400, 0},
		{`{"since":"2026-01-02T03:04:05Z","states":[]}`, 400, 0},
		{`{"since":"2026-01-02T03:04:05Z","states":["queued"]}`, 400, 0},
		{`{"since":"2026-01-02T03:04:05Z","extra":1}`, 400, 0},
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(c.body), &m); err != nil {
			t.Fatal(err)
		}
		f, aerr := decodeRange(m)
		switch {
		case c.status == 0 && aerr != nil:
			t.Errorf("%s: %v", c.body, aerr)
		case c.status != 0 && (aerr == nil || aerr.Status != c.status):
			t.Errorf("%s: %v, want %d", c.body, aerr, c.status)
		case c.status == 0 && (len(f.States) != c.states || !f.Since.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))):
			t.Errorf("%s: filter %+v", c.body, f)
		}
	}
}
