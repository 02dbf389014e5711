package edge

import (
	"slices"
	"testing"

	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// FuzzWatchBodies feeds client bodies to the readers of the cw, ct and et
// request members: none may panic, and whatever they accept must be within
// the spec's rules.
func FuzzWatchBodies(f *testing.F) {
	for _, s := range []string{
		`{"event_types":["community_joined","account_followed"],"min_member_count":5,"flap_cooldown_secs":60}`,
		`{"event_types":[],"min_member_count":0,"flap_cooldown_secs":3600}`,
		`{"event_types":["community_left"],"flap_cooldown_secs":3601}`,
		`{"min_convergence":2,"time_window_hours":168}`,
		`{"min_convergence":1.5,"time_window_hours":"1","min_member_count":null}`,
		`{"tweet_ids":["123","456"],"new_followers":true}`,
		`{"tweet_ids":[1,"x",""],"new_followers":"yes"}`,
		`{"tweet_ids":null}`,
		`{"min_member_count":9223372036854775807,"flap_cooldown_secs":-9223372036854775808}`,
		`{"min_member_count":1e3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		if types, ok, err := cwEventTypes(m); err == nil && ok {
			for i, x := range types {
				if !slices.Contains(cw.EventTypes, x) || (i > 0 && slices.Index(cw.EventTypes, types[i-1]) >= slices.Index(cw.EventTypes, x)) {
					t.Fatalf("event_types %v accepted: not a deduplicated subset in spec order", types)
				}
			}
		}
		for _, r := range []struct {
			name   string
			lo, hi int64
		}{
			{"min_member_count", 0, -1},
			{"flap_cooldown_secs", cw.MinFlapCooldownSecs, cw.MaxFlapCooldownSecs},
			{"min_convergence", ct.MinConvergenceLow, ct.MinConvergenceHigh},
			{"time_window_hours", ct.WindowHoursLow, ct.WindowHoursHigh},
		} {
			v, ok, err := watchInt(m, r.name, r.lo, r.hi)
			if err == nil && ok && (v < r.lo || (r.hi >= 0 && v > r.hi)) {
				t.Fatalf("%s = %d accepted outside [%d, %d]", r.name, v, r.lo, r.hi)
			}
		}
		if ids, err := etTweetIDs(m); err == nil {
			if len(ids) == 0 {
				t.Fatal("an empty tweet_ids accepted")
			}
			for _, id := range ids {
				if !protocol.ValidNumericID(id) {
					t.Fatalf("tweet id %q accepted", id)
				}
			}
		}
		_, _, _ = cwNewFollowers(m, true)
	})
}
