package pumpfun

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzParseAlertTypes: client alert types never panic; accepted lists are
// canonical, non-empty and known.
func FuzzParseAlertTypes(f *testing.F) {
	f.Add("callouts,livestream")
	f.Add(" Graduation ,token_launch,graduation")
	f.Add("")
	f.Add("launch")
	f.Fuzz(func(t *testing.T, csv string) {
		out, err := ParseAlertTypes(strings.Split(csv, ","))
		if err != nil {
			return
		}
		if len(out) == 0 {
			t.Fatalf("%q: accepted with no alert type", csv)
		}
		for i, a := range out {
			if !slices.Contains(AlertTypes, a) || (i > 0 && slices.Index(AlertTypes, out[i-1]) >= slices.Index(AlertTypes, a)) {
				t.Fatalf("%q: %v not canonical", csv, out)
			}
		}
	})
}

// FuzzCrossed: upstream market caps never panic; a milestone fires at most
// once and only at its multiple.
func FuzzCrossed(f *testing.F) {
	f.Add(40000.0, 84000.0, uint8(0))
	f.Add(0.0, 1.0, uint8(0))
	f.Add(math.Inf(1), 1e300, uint8(7))
	f.Fuzz(func(t *testing.T, base, mcap float64, fired uint8) {
		fired &= allFired
		hits, after := Crossed(base, mcap, fired)
		if after&fired != fired {
			t.Fatalf("fired milestones forgotten: %b -> %b", fired, after)
		}
		for _, m := range hits {
			i := slices.IndexFunc(Milestones, func(x Milestone) bool { return x.Name == m.Name })
			if fired&(1<<i) != 0 || !(mcap >= m.Multiple*base) {
				t.Fatalf("Crossed(%v, %v, %b) fired %s", base, mcap, fired, m.Name)
			}
		}
		if again, _ := Crossed(base, mcap, after); len(again) != 0 {
			t.Fatalf("milestones fire twice: %v", again)
		}
	})
}
