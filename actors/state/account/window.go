package account

import (
	"sync"
	"time"
)

// Window is a fixed-window request counter shared by all keys of one account.
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
