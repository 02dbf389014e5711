package casearch

import (
	"context"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/state/ratewindow"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Spec 2 "Limits": CA Search rates per account, all keys sharing them.
const (
	PerSecond = 10
	PerMinute = 20
)

// QuotaOptions tune a Quota; zero fields take the spec's values.
type QuotaOptions struct {
	Second, Minute time.Duration // the two fixed windows
	// Jobs persist the daily counts behind (nil: kept in memory only).
	Jobs  Jobs
	Store UsageStore
}

// UsageStore keeps the daily counts.
type UsageStore interface {
	PutSearchUsage(ctx context.Context, us []persistence.SearchUsage) error
}

// Quota counts CA searches per account: 10 a second and 20 a minute in
// fixed windows that start at the first call after the previous window
// ended, and a daily allowance per UTC day. A call refused with 429 is not
// counted; every other counted call (those that then fail with 500
// included) uses one of each. When several limits refuse a call, the
// answer names the one that lasts longest: daily, then minute, then second.
//
// On a node of a cluster (Share) the windows and the day count every
// node's calls: see share.go.
type Quota struct {
	opt QuotaOptions

	mu        sync.Mutex
	accounts  map[string]*usage
	dirty     map[string]struct{}
	scheduled bool
	counted   func(account string) // a cluster's; nil on one node
}

type usage struct {
	sec, min ratewindow.Fixed
	day      int64 // epoch ms of the UTC midnight of used
	used     int   // on a cluster, every node's calls as far as heard
	unsent   int   // this node's calls of day not yet announced (cluster)
}

// NewQuota returns an empty quota.
func NewQuota(opt QuotaOptions) *Quota {
	if opt.Second <= 0 {
		opt.Second = time.Second
	}
	if opt.Minute <= 0 {
		opt.Minute = time.Minute
	}
	return &Quota{opt: opt, accounts: map[string]*usage{}, dirty: map[string]struct{}{}}
}

// Load restores the counts of today (from the store, at start; on a
// cluster again when the change feed listens), keeping the larger count.
func (q *Quota) Load(us []persistence.SearchUsage) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, u := range us {
		a := q.accountLocked(u.AccountID)
		switch d := u.Day.UnixMilli(); {
		case d > a.day:
			a.day, a.used, a.unsent = d, u.Used, 0
		case d == a.day:
			a.used = max(a.used, u.Used)
		}
	}
}

// Verdict is the outcome of Take, with what the quota headers show.
type Verdict struct {
	// Err is nil when the call may go on; else a 429 rate_limited or
	// daily_limit_reached.
	Err             *protocol.APIError
	DailyLimit      int
	DailyRemaining  int
	MinuteLimit     int
	MinuteRemaining int
}

// DayStart is the UTC midnight that starts t's day.
func DayStart(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Take counts one call of account, whose allowance is daily per UTC day,
// at now, unless a limit refuses it.
func (q *Quota) Take(account string, daily int, now time.Time) Verdict {
	q.mu.Lock()
	a := q.accountLocked(account)
	a.sec.Roll(now, q.opt.Second)
	a.min.Roll(now, q.opt.Minute)
	secN, minN := a.sec.Total(now, q.opt.Second), a.min.Total(now, q.opt.Minute)
	midnight := DayStart(now)
	if day := midnight.UnixMilli(); day != a.day {
		a.day, a.used, a.unsent = day, 0, 0
	}
	v := Verdict{DailyLimit: daily, MinuteLimit: PerMinute}
	switch {
	case a.used >= daily:
		wait := midnight.Add(24 * time.Hour).Sub(now)
		v.Err = &protocol.APIError{Status: 429, Code: protocol.CodeDailyLimitReached,
			Message: "daily CA Search allowance used up; it resets at 00:00 UTC", RetryAfter: ceilSeconds(wait)}
	case minN >= PerMinute: // the longer wait first: retrying after 1 s would not help
		v.Err = protocol.RateLimited(60)
	case secN >= PerSecond:
		v.Err = protocol.RateLimited(1)
	default:
		a.sec.N++
		a.min.N++
		minN++
		a.used++
		a.unsent++
		q.dirty[account] = struct{}{}
	}
	v.DailyRemaining = max(0, daily-a.used)
	v.MinuteRemaining = max(0, PerMinute-minN)
	schedule := v.Err == nil && q.markDirtyLocked()
	counted := v.Err == nil && q.counted != nil
	q.mu.Unlock()
	if schedule {
		q.opt.Jobs.Do("search usage", q.job())
	}
	if counted {
		q.counted(account)
	}
	return v
}

// markDirtyLocked reports whether a write of the dirty counts must be
// scheduled (none is yet).
func (q *Quota) markDirtyLocked() bool {
	if q.opt.Jobs == nil || q.scheduled {
		return false
	}
	q.scheduled = true
	return true
}

func (q *Quota) accountLocked(id string) *usage {
	a := q.accounts[id]
	if a == nil {
		a = &usage{}
		q.accounts[id] = a
	}
	return a
}

// job writes the counts changed since the last write; a retry writes the
// same counts again.
func (q *Quota) job() func(ctx context.Context) error {
	var batch []persistence.SearchUsage
	taken := false
	return func(ctx context.Context) error {
		if !taken {
			q.mu.Lock()
			for id := range q.dirty {
				a := q.accounts[id]
				batch = append(batch, persistence.SearchUsage{AccountID: id, Day: time.UnixMilli(a.day).UTC(), Used: a.used})
			}
			clear(q.dirty)
			q.scheduled = false
			q.mu.Unlock()
			taken = true
		}
		return q.opt.Store.PutSearchUsage(ctx, batch)
	}
}

// ceilSeconds rounds d up to whole seconds, at least 1.
func ceilSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}
