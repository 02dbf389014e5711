package account

import (
	"sync"
	"time"
)

// Limiter holds an account's REST windows, one per product family
// (CONTRACT section 2): every key of the account shares the family's window,
// and one family's traffic never spends another's.
type Limiter struct {
	w [MaxRateFamilies]Window
}

// MaxRateFamilies bounds the family numbers Limiter.Window takes.
const MaxRateFamilies = 16

// Window is the account's window of family (0 <= family < MaxRateFamilies).
func (l *Limiter) Window(family int) *Window { return &l.w[family] }

// Window is a fixed-window request counter shared by all keys of one
// account for one product family.
type Window struct {
	mu    sync.Mutex
	start time.Time
	count int
}

// Allow counts one request at now against limit per window and reports
// whether it may proceed; when it may not, wait is the time left in the window.
func (w *Window) Allow(now time.Time, window time.Duration, limit int) (ok bool, wait time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if now.Sub(w.start) >= window || now.Before(w.start) {
		w.start = now
		w.count = 0
	}
	if w.count >= limit {
		return false, window - now.Sub(w.start)
	}
	w.count++
	return true, 0
}
