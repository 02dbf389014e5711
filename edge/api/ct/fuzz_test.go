package ct

import (
	"testing"

	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/internal/testkit"
	json "github.com/goccy/go-json"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// FuzzSettings feeds client bodies to the settings reader: it never panics
// and accepts only values within spec 3's ranges.
func FuzzSettings(f *testing.F) {
	for _, s := range []string{
		`{"min_convergence":2,"time_window_hours":168}`,
		`{"min_convergence":1.5,"time_window_hours":"1","min_member_count":null}`,
		`{"min_convergence":21,"time_window_hours":0,"min_member_count":-1}`,
		`{"min_member_count":9223372036854775807}`,
		`{"min_member_count":1e3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		p, err := readSettings(m)
		if err != nil {
			return
		}
		if p.setConv && (p.conv < ct.MinConvergenceLow || p.conv > ct.MinConvergenceHigh) {
			t.Fatalf("min_convergence %d accepted", p.conv)
		}
		if p.setWin && (p.win < ct.WindowHoursLow || p.win > ct.WindowHoursHigh) {
			t.Fatalf("time_window_hours %d accepted", p.win)
		}
		if p.setFloor && p.floor < 0 {
			t.Fatalf("min_member_count %d accepted", p.floor)
		}
	})
}
