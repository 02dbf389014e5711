package cw

import "testing"

func TestFlapped(t *testing.T) {
	join := func(at, prevJoined, prevLeft int64) Change {
		return Change{Kind: Joined, At: at, JoinedAt: at, PrevJoinedAt: prevJoined, PrevLeftAt: prevLeft}
	}
	const s = 1000 // ms per second
	for _, tc := range []struct {
		name     string
		c        Change
		cooldown int
		want     bool
	}{
		{"no previous membership", join(100*s, 0, 0), 60, false},
		{"cooldown off", join(30*s, 10*s, 20*s), 0, false},
		{"left and came back within the window", join(30*s, 10*s, 20*s), 60, true},
		{"left exactly at the window edge", join(80*s, 10*s, 70*s), 60, true},
		{"stayed longer than the window before leaving", join(80*s, 10*s, 71*s), 60, false},
		{"came back after the window", join(81*s, 10*s, 20*s), 60, false},
		{"came back exactly at the window edge", join(80*s, 10*s, 20*s), 60, true},
		{"membership from before the sync is never a flap", join(30*s, 0, 20*s), 60, false},
		{"longest cooldown", join(3600*s+2*s, 1*s, 3600*s+1*s), MaxFlapCooldownSecs, true},
		{"a rename is never a flap", Change{Kind: Renamed, At: 30 * s, PrevJoinedAt: 10 * s, PrevLeftAt: 20 * s}, 60, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Flapped(tc.c, tc.cooldown); got != tc.want {
				t.Errorf("Flapped = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDeliverable(t *testing.T) {
	big := comm("1", "A", "d", 500)
	small := comm("2", "B", "d", 5)
	def := DefaultSettings()
	onlyRenames := Settings{EventTypes: []string{string(Renamed)}}
	floor := Settings{EventTypes: EventTypes, MinMemberCount: 100}
	flap := Settings{EventTypes: EventTypes, FlapCooldownSecs: 60}
	for _, tc := range []struct {
		name   string
		s      Settings
		c      Change
		want   bool
		stream bool
	}{
		{"defaults deliver a join", def, Change{Kind: Joined, Community: small}, true, true},
		{"defaults deliver a rename", def, Change{Kind: Renamed, Community: small}, true, true},
		{"defaults deliver a description change", def, Change{Kind: DescriptionChanged, Community: small}, true, true},
		{"a leave is never delivered", def, Change{Kind: Left, Community: big}, false, false},
		{"event type off", onlyRenames, Change{Kind: Joined, Community: big}, false, true},
		{"event type on", onlyRenames, Change{Kind: Renamed, Community: big}, true, true},
		{"no event types", Settings{EventTypes: []string{}}, Change{Kind: Renamed, Community: big}, false, true},
		{"under the member floor", floor, Change{Kind: Joined, Community: small}, false, true},
		{"at the member floor", floor, Change{Kind: Joined, Community: comm("3", "C", "", 100)}, true, true},
		{"flap suppressed", flap, Change{Kind: Joined, Community: big, At: 30000, PrevJoinedAt: 10000, PrevLeftAt: 20000}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Deliverable(tc.c); got != tc.want {
				t.Errorf("Deliverable = %v, want %v", got, tc.want)
			}
			if got := Streamed(tc.c); got != tc.stream {
				t.Errorf("Streamed = %v, want %v", got, tc.stream)
			}
		})
	}
}

func TestDefaultSettingsAreACopy(t *testing.T) {
	d := DefaultSettings()
	d.EventTypes[0] = "changed"
	if EventTypes[0] != string(Joined) {
		t.Fatal("DefaultSettings shares its slice with EventTypes")
	}
}
