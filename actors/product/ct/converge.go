// Package ct is the Convergence Tracker: it fires when at least
// min_convergence of an account's watched handles are members of one
// community that each joined within the last time_window_hours (spec 3).
// The handle actors own the memberships and their join times and tell it
// every change (handle.MembershipsChanged); the detector indexes those of
// watched handles by community, and asks for a handle's memberships when an
// account adds it (Detector.Added). A membership the handle already had in
// its first list has no known join time and never counts.
package ct

import (
	"cmp"
	"slices"
)

// Limits of the settings (spec 3).
const (
	MinConvergenceLow  = 2
	MinConvergenceHigh = 20
	WindowHoursLow     = 1
	WindowHoursHigh    = 168
	DefaultConvergence = 2
	DefaultWindowHours = 24
	hourMS             = int64(3600 * 1000)
	maxWindowMS        = WindowHoursHigh * hourMS
)

// Settings are an account's Convergence Tracker settings.
type Settings struct {
	MinConvergence  int   `json:"min_convergence"`
	TimeWindowHours int   `json:"time_window_hours"`
	MinMemberCount  int64 `json:"min_member_count"`
}

// DefaultSettings: two handles, one day, no member floor.
func DefaultSettings() Settings {
	return Settings{MinConvergence: DefaultConvergence, TimeWindowHours: DefaultWindowHours}
}

// WindowMS is the window in milliseconds.
func (s Settings) WindowMS() int64 { return int64(s.TimeWindowHours) * hourMS }

// Member is a handle that joined a community at JoinedAt (epoch ms).
type Member struct {
	Handle   string
	JoinedAt int64
}

// InWindow returns the members of joins (handle -> join time; 0 = unknown)
// that count at now: watched by the account and joined no earlier than
// window before now (a join stamped after now, which observations of other
// handles arriving out of order can show, counts). They come sorted by join
// time, then handle.
func InWindow(joins map[string]int64, watched func(handle string) bool, now, windowMS int64) []Member {
	var out []Member
	for h, at := range joins {
		if at <= 0 || now-at > windowMS || !watched(h) {
			continue
		}
		out = append(out, Member{Handle: h, JoinedAt: at})
	}
	slices.SortFunc(out, func(a, b Member) int {
		return cmp.Or(cmp.Compare(a.JoinedAt, b.JoinedAt), cmp.Compare(a.Handle, b.Handle))
	})
	return out
}

// Fired is the last convergence reported for one (account, community): its
// count and when.
type Fired struct {
	Count int   `json:"count"`
	At    int64 `json:"at"`
}

// Decide says whether a convergence of count handles fires now, given the
// last one reported (nil: none ongoing). A convergence fires when the count
// reaches min, and again each time it grows past the highest count
// reported; it ends when the count falls below min, or when the last report
// is older than the window (every handle it counted has aged out), and the
// next time the count reaches min it fires anew. next is the state to keep
// (nil: none).
func Decide(prev *Fired, count, min int, now, windowMS int64) (fire bool, next *Fired) {
	if prev != nil && now-prev.At > windowMS {
		prev = nil
	}
	if count < min {
		return false, nil
	}
	if prev == nil || count > prev.Count {
		return true, &Fired{Count: count, At: now}
	}
	return false, prev
}
