package account

import (
	"sync"
	"time"

	"github.com/alertd/alertd/actors/state/ratewindow"
)

// Limiter holds an account's REST windows, one per product family
// (CONTRACT section 2): every key of the account shares the family's window,
// and one family's traffic never spends another's.
type Limiter struct {
	account string
	shared  *rateShare // the registry's; its counted is nil on one node
	w       [MaxRateFamilies]Window
}

// MaxRateFamilies bounds the family numbers Limiter.Window takes.
const MaxRateFamilies = 16

// Window is the account's window of family (0 <= family < MaxRateFamilies).
func (l *Limiter) Window(family int) *Window { return &l.w[family] }

// Allow counts one request of family at now against limit per window (on
// a cluster, with the other nodes' counts as last heard) and reports
// whether it may proceed; when it may not, wait is the time left.
func (l *Limiter) Allow(family int, now time.Time, window time.Duration, limit int) (ok bool, wait time.Duration) {
	ok, wait = l.w[family].Allow(now, window, limit)
	if ok && l.shared != nil && l.shared.counted != nil {
		l.shared.counted(l.account, family)
	}
	return ok, wait
}

// rateShare is how the registry's limiters tell a cluster their counts.
type rateShare struct {
	counted func(account string, family int) // nil on one node
}

// Window is a fixed-window request counter shared by all keys of one
// account for one product family.
type Window struct {
	mu sync.Mutex
	w  ratewindow.Fixed
}

// Allow counts one request at now against limit per window and reports
// whether it may proceed; when it may not, wait is the time left in the window.
func (w *Window) Allow(now time.Time, window time.Duration, limit int) (ok bool, wait time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Allow(now, window, limit)
}

// Count is this node's count in the window and the window's start (what a
// cluster announces).
func (w *Window) Count() (start time.Time, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Start, w.w.N
}

// Heard notes another node's count n in its window starting at start.
func (w *Window) Heard(node string, start time.Time, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w.Heard(node, start, n)
}
