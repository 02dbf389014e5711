package xapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// Endpoints, as the rate limiter keys them: each has its own budget per
// 15-minute window (docs.x.com/x-api/fundamentals/rate-limits).
const (
	epRules     = "rules"     // GET and POST /2/tweets/search/stream/rules
	epStream    = "stream"    // GET /2/tweets/search/stream
	epUsersBy   = "users_by"  // GET /2/users/by
	epUsers     = "users"     // GET /2/users
	epFollowing = "following" // GET /2/users/:id/following
)

// defaultWindow is the rate-limit window the API uses when a 429 comes
// without an x-rate-limit-reset header.
const defaultWindow = 15 * time.Minute

// budget is what the last answer of one endpoint announced.
type budget struct {
	remaining int
	reset     time.Time // when remaining is refilled
	known     bool
}

// limiter keeps per-endpoint budgets from the x-rate-limit-limit,
// x-rate-limit-remaining and x-rate-limit-reset headers and makes callers
// wait for the reset when a budget is spent or a 429 came: no call is made
// before the reset. Safe for concurrent use; mu guards budgets and is never
// held while waiting.
type limiter struct {
	clock clockwork.Clock
	stats *Stats

	mu      sync.Mutex
	budgets map[string]*budget
}

func newLimiter(clock clockwork.Clock, stats *Stats) *limiter {
	return &limiter{clock: clock, stats: stats, budgets: map[string]*budget{}}
}

// wait returns when endpoint may be called: at once while its budget lasts,
// otherwise at its reset. It counts each wait.
func (l *limiter) wait(ctx context.Context, endpoint string) error {
	d := l.delay(endpoint)
	if d <= 0 {
		return nil
	}
	l.stats.RateLimitWaits.Add(1)
	t := l.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.Chan():
		return nil
	}
}

// delay is how long a call to endpoint must wait now.
func (l *limiter) delay(endpoint string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.budgets[endpoint]
	if b == nil || !b.known || b.remaining > 0 {
		return 0
	}
	d := b.reset.Sub(l.clock.Now())
	if d <= 0 {
		b.known = false // the window rolled over; the next answer tells the new budget
		return 0
	}
	return d
}

// update reads the budget an answer announced. A 429 spends the budget
// until the announced reset (or a whole window when none is announced).
func (l *limiter) update(endpoint string, status int, h http.Header) {
	rem, okRem := headerInt(h, "x-rate-limit-remaining")
	reset, okReset := headerInt(h, "x-rate-limit-reset")
	if status != http.StatusTooManyRequests && !(okRem && okReset) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.budgets[endpoint]
	if b == nil {
		b = &budget{}
		l.budgets[endpoint] = b
	}
	b.known = true
	b.remaining = rem
	if okReset {
		b.reset = time.Unix(int64(reset), 0)
	} else {
		b.reset = l.clock.Now().Add(defaultWindow)
	}
	if status == http.StatusTooManyRequests && !(okRem && rem > 0) {
		// The budget is spent. (A 429 that still announces a budget is
		// about something else, such as the stream's connection limit.)
		b.remaining = 0
	}
}

func headerInt(h http.Header, name string) (int, bool) {
	v := h.Get(name)
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}
