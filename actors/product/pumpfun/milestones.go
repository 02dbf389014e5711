package pumpfun

import "math"

// Milestone is a multiple of the callout market cap that fires a
// callout_milestone frame, once per callout.
type Milestone struct {
	Name     string
	Multiple float64
}

// Milestones in ascending order (spec 3: 2x, 5x, 10x).
var Milestones = []Milestone{{"2x", 2}, {"5x", 5}, {"10x", 10}}

// allFired is the fired set holding every milestone.
const allFired = uint8(1<<3 - 1)

// Crossed returns the milestones that market cap mcap reaches (mcap >=
// multiple x calloutMcap) and that fired does not yet hold, lowest first,
// and fired with them added. A jump past several milestones returns each of
// them; a dip below a fired milestone never fires it again. A callout with
// no positive market cap has no milestones.
func Crossed(calloutMcap, mcap float64, fired uint8) ([]Milestone, uint8) {
	if !(calloutMcap > 0) || math.IsInf(calloutMcap, 0) {
		return nil, fired
	}
	var hits []Milestone
	for i, m := range Milestones {
		bit := uint8(1) << i
		if fired&bit == 0 && mcap >= m.Multiple*calloutMcap {
			hits = append(hits, m)
			fired |= bit
		}
	}
	return hits, fired
}

// Multiplier is mcap / calloutMcap rounded to two decimals (0 when the
// callout market cap is not positive).
func Multiplier(calloutMcap, mcap float64) float64 {
	if !(calloutMcap > 0) {
		return 0
	}
	return math.Round(mcap/calloutMcap*100) / 100
}
