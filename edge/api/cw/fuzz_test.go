package cw

import (
	"slices"
	"testing"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/internal/testkit"
	json "github.com/goccy/go-json"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// FuzzBodies feeds client bodies to the readers of the cw request members:
// none may panic, and whatever they accept must be within the spec's rules.
func FuzzBodies(f *testing.F) {
	for _, s := range []string{
		`{"event_types":["community_joined","account_followed"],"min_member_count":5,"flap_cooldown_secs":60}`,
		`{"event_types":[],"min_member_count":0,"flap_cooldown_secs":3600}`,
		`{"event_types":["community_left"],"flap_cooldown_secs":3601}`,
		`{"event_types":["account_followed","community_joined","account_followed"]}`,
		`{"new_followers":true}`,
		`{"new_followers":"yes"}`,
		`{"min_member_count":9223372036854775807,"flap_cooldown_secs":-9223372036854775808}`,
		`{"min_member_count":1e3,"event_types":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		if types, ok, err := eventTypes(m); err == nil && ok {
			for i, x := range types {
				if !slices.Contains(cw.EventTypes, x) || (i > 0 && slices.Index(cw.EventTypes, types[i-1]) >= slices.Index(cw.EventTypes, x)) {
					t.Fatalf("event_types %v accepted: not a deduplicated subset in spec order", types)
				}
			}
		}
		if p, err := readSettings(m); err == nil {
			if p.setCool && (p.cool < cw.MinFlapCooldownSecs || p.cool > cw.MaxFlapCooldownSecs) {
				t.Fatalf("flap_cooldown_secs %d accepted", p.cool)
			}
			if p.setFloor && p.floor < 0 {
				t.Fatalf("min_member_count %d accepted", p.floor)
			}
		}
		_, _, _ = newFollowers(m, true)
	})
}
