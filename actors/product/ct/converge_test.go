package ct

import (
	"fmt"
	"testing"
)

const h = hourMS

func TestInWindow(t *testing.T) {
	joins := map[string]int64{"a": 10 * h, "b": 20 * h, "c": 0, "d": 25 * h, "e": 26 * h, "x": 21 * h}
	watched := func(s string) bool { return s != "x" }
	for _, tc := range []struct {
		name   string
		now    int64
		window int64
		want   string
	}{
		{"all known joins within a day", 26 * h, 24 * h, "[a b d e]"},
		{"a join exactly at the window edge counts", 34 * h, 24 * h, "[a b d e]"},
		{"one ms past the edge does not", 34*h + 1, 24 * h, "[b d e]"},
		{"short window", 26 * h, 1 * h, "[d e]"},
		{"joins stamped after now count (observations of other handles come out of order)", 20 * h, 24 * h, "[a b d e]"},
		{"unknown join times and unwatched handles never count", 100 * h, 168 * h, "[a b d e]"},
		{"nothing left", 200 * h, 24 * h, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, m := range InWindow(joins, watched, tc.now, tc.window) {
				got = append(got, m.Handle)
			}
			if s := fmt.Sprint(got); s != tc.want && !(s == "[]" && tc.want == "[]") {
				t.Errorf("InWindow = %v, want %s", got, tc.want)
			}
		})
	}
}

func TestInWindowOrder(t *testing.T) {
	got := InWindow(map[string]int64{"zed": 5, "amy": 5, "bob": 3}, func(string) bool { return true }, 10, 100)
	if fmt.Sprint(got) != "[{bob 3} {amy 5} {zed 5}]" {
		t.Errorf("order %v: by join time, then handle", got)
	}
}

func TestDecide(t *testing.T) {
	w := 24 * h
	for _, tc := range []struct {
		name     string
		prev     *Fired
		count    int
		now      int64
		wantFire bool
		wantNext string
	}{
		{"below the minimum: nothing", nil, 1, h, false, "<nil>"},
		{"reaches the minimum: fires", nil, 2, h, true, "&{2 3600000}"},
		{"same count again: quiet", &Fired{2, h}, 2, 2 * h, false, "&{2 3600000}"},
		{"grows: fires again", &Fired{2, h}, 3, 2 * h, true, "&{3 7200000}"},
		{"shrinks but stays at the minimum: quiet, the high mark stays", &Fired{3, h}, 2, 2 * h, false, "&{3 3600000}"},
		{"regrows to the high mark: quiet", &Fired{3, h}, 3, 3 * h, false, "&{3 3600000}"},
		{"falls below the minimum: ends", &Fired{3, h}, 1, 3 * h, false, "<nil>"},
		{"after it ended, reaching the minimum fires anew", nil, 2, 4 * h, true, "&{2 14400000}"},
		{"the last report aged out: fires anew at the same count", &Fired{2, h}, 2, h + w + 1, true, "&{2 90000001}"},
		{"the last report exactly a window old still holds", &Fired{2, h}, 2, h + w, false, "&{2 3600000}"},
		{"a higher minimum than the count", nil, 3, h, false, "<nil>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			min := 2
			if tc.name == "a higher minimum than the count" {
				min, tc.count = 4, 3
			}
			fire, next := Decide(tc.prev, tc.count, min, tc.now, w)
			if fire != tc.wantFire || fmt.Sprint(next) != tc.wantNext {
				t.Errorf("Decide = %v, %v; want %v, %s", fire, next, tc.wantFire, tc.wantNext)
			}
		})
	}
}
