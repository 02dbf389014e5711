package pumpfun

import (
	"fmt"
	"testing"

	"github.com/alertd/alertd/protocol"
)

func names(ms []Milestone) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return fmt.Sprint(out)
}

func TestCrossed(t *testing.T) {
	const f2, f5, f10 = 1, 2, 4
	for _, c := range []struct {
		name      string
		base, cap float64
		fired     uint8
		want      string
		wantFired uint8
	}{
		{"below 2x", 100, 199.99, 0, "[]", 0},
		{"exactly 2x", 100, 200, 0, "[2x]", f2},
		{"between 2x and 5x", 100, 350, 0, "[2x]", f2},
		{"jump past 2x and 5x", 100, 520, 0, "[2x 5x]", f2 | f5},
		{"jump past all three", 100, 1200, 0, "[2x 5x 10x]", f2 | f5 | f10},
		{"2x fired, still above", 100, 300, f2, "[]", f2},
		{"2x fired, dip below", 100, 150, f2, "[]", f2},
		{"2x fired, up to 5x", 100, 500, f2, "[5x]", f2 | f5},
		{"2x and 5x fired, jump to 10x", 100, 1000, f2 | f5, "[10x]", f2 | f5 | f10},
		{"5x fired alone (replayed), 2x and 10x reached", 100, 1000, f5, "[2x 10x]", f2 | f5 | f10},
		{"all fired", 100, 5000, f2 | f5 | f10, "[]", f2 | f5 | f10},
		{"zero callout mcap", 0, 1000, 0, "[]", 0},
		{"negative callout mcap", -5, 1000, 0, "[]", 0},
		{"falling from the start", 100, 40, 0, "[]", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			hits, fired := Crossed(c.base, c.cap, c.fired)
			if names(hits) != c.want || fired != c.wantFired {
				t.Errorf("Crossed(%v, %v, %b) = %s, %b; want %s, %b", c.base, c.cap, c.fired, names(hits), fired, c.want, c.wantFired)
			}
		})
	}
}

// TestCrossedPath follows one callout along a market-cap path: each
// milestone fires once, in order, jumps fire every milestone passed, dips
// fire nothing.
func TestCrossedPath(t *testing.T) {
	path := []float64{40000, 60000, 85000, 70000, 79000, 81000, 210000, 150000, 390000, 410000, 2e6}
	want := []string{"[]", "[]", "[2x]", "[]", "[]", "[]", "[5x]", "[]", "[]", "[10x]", "[]"}
	var fired uint8
	for i, mc := range path {
		var hits []Milestone
		hits, fired = Crossed(40000, mc, fired)
		if got := names(hits); got != want[i] {
			t.Errorf("step %d (mcap %v): %s, want %s", i, mc, got, want[i])
		}
	}
	if fired != allFired {
		t.Errorf("fired %b at the end, want %b", fired, allFired)
	}
}

func TestMultiplier(t *testing.T) {
	for _, c := range []struct{ base, cap, want float64 }{
		{40000, 40000, 1}, {40000, 84000, 2.1}, {3, 10, 3.33}, {100, 1234.5, 12.35}, {0, 10, 0}, {100, 0, 0},
	} {
		if got := Multiplier(c.base, c.cap); got != c.want {
			t.Errorf("Multiplier(%v, %v) = %v, want %v", c.base, c.cap, got, c.want)
		}
	}
}

func TestParseAlertTypes(t *testing.T) {
	for _, c := range []struct {
		in      []string
		want    string
		wantErr bool
	}{
		{nil, "[livestream token_launch graduation]", false},
		{[]string{"callouts"}, "[callouts]", false},
		{[]string{"graduation", "Callouts", " livestream ", "graduation"}, "[callouts livestream graduation]", false},
		{[]string{"token_launch", "callouts", "livestream", "graduation"}, "[callouts livestream token_launch graduation]", false},
		{[]string{}, "", true},
		{[]string{"launch"}, "", true},
		{[]string{"callouts", ""}, "", true},
	} {
		got, err := ParseAlertTypes(c.in)
		if (err != nil) != c.wantErr || (err == nil && fmt.Sprint(got) != c.want) {
			t.Errorf("ParseAlertTypes(%q) = %v, %v; want %s (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
}

func TestAlertTypeOf(t *testing.T) {
	for ev, want := range map[string]string{
		protocol.LaunchLivestreamStarted: AlertLivestream, protocol.LaunchLivestreamEnded: AlertLivestream,
		protocol.LaunchTokenLaunched: AlertTokenLaunch, protocol.LaunchGraduated: AlertGraduation,
		EventCalloutNew: AlertCallouts, EventCalloutMilestone: AlertCallouts, "other": "",
	} {
		if got := AlertTypeOf(ev); got != want {
			t.Errorf("AlertTypeOf(%q) = %q, want %q", ev, got, want)
		}
	}
}

func TestCallBook(t *testing.T) {
	b := newCallBook(3)
	co := func(caller, mint string, mc float64) *protocol.CalloutObs {
		return &protocol.CalloutObs{CallerWallet: caller, Mint: mint, CalloutMcap: mc}
	}
	c1 := b.add(co("A", "M1", 1))
	b.add(co("B", "M1", 2))
	c1.fired = 1
	c1b := b.add(co("A", "M1", 5)) // replaces A's first call on M1
	if c1b == c1 || c1b.fired != 0 || len(b.mint("M1")) != 2 || b.byKey[callKey("A", "M1")] != c1b {
		t.Fatalf("replace: %+v, mint M1 has %d calls", c1b, len(b.mint("M1")))
	}
	b.add(co("A", "M2", 1))
	b.add(co("A", "M3", 1)) // four followed: the oldest (B on M1) goes
	if len(b.byKey) != 3 || b.byKey[callKey("B", "M1")] != nil {
		t.Fatalf("eviction: %d followed, B/M1 kept: %v", len(b.byKey), b.byKey[callKey("B", "M1")] != nil)
	}
	if got := b.mint("M1"); len(got) != 1 || got[0] != c1b {
		t.Fatalf("M1 after eviction: %v", got)
	}
	b.drop(c1b)
	b.drop(c1b) // twice is harmless
	if len(b.mint("M1")) != 0 || len(b.byKey) != 2 {
		t.Fatalf("after drop: %d on M1, %d followed", len(b.mint("M1")), len(b.byKey))
	}
	for i := range 100 { // the order log stays bounded
		b.add(co("C", fmt.Sprint("X", i%2), 1))
	}
	if len(b.order) > 2*b.max+16 || len(b.byKey) != 3 {
		t.Fatalf("order log %d entries, %d followed", len(b.order), len(b.byKey))
	}
}
