package casearch

import "time"

// Counts is what a node announces of an account's quota to the other
// nodes of a cluster: its own calls in its second and minute windows, and
// its calls of the UTC day Day not announced before (Delta).
type Counts struct {
	SecStart, MinStart time.Time
	SecN, MinN         int
	Day                time.Time
	Delta              int
}

// Share makes the quota tell counted when this node counted a call of an
// account (a cluster then announces its Counts). counted must not block;
// set it before serving.
//
// The day's count is the sum of every node's calls: each node announces
// the calls it admitted since its last announcement, and adds the others'
// to its own. Every node writes the total it knows behind (the store keeps
// the larger of two counts of a day), so a node that starts reads the
// cluster's count of today, less the calls of the last write's delay.
func (q *Quota) Share(counted func(account string)) { q.counted = counted }

// Announce returns account's counts to announce and marks its day's calls
// announced.
func (q *Quota) Announce(account string) Counts {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.accountLocked(account)
	c := Counts{SecStart: a.sec.Start, SecN: a.sec.N, MinStart: a.min.Start, MinN: a.min.N,
		Day: time.UnixMilli(a.day).UTC(), Delta: a.unsent}
	a.unsent = 0
	return c
}

// Heard applies another node's announced counts of account.
func (q *Quota) Heard(node, account string, c Counts) {
	q.mu.Lock()
	a := q.accountLocked(account)
	a.sec.Heard(node, c.SecStart, c.SecN)
	a.min.Heard(node, c.MinStart, c.MinN)
	changed := false
	switch day := c.Day.UnixMilli(); {
	case c.Delta == 0:
	case day == a.day:
		a.used += c.Delta
		changed = true
	case day > a.day: // the other node's day began first
		a.day, a.used, a.unsent = day, c.Delta, 0
		changed = true
	}
	schedule := false
	if changed {
		q.dirty[account] = struct{}{}
		schedule = q.markDirtyLocked()
	}
	q.mu.Unlock()
	if schedule {
		q.opt.Jobs.Do("search usage", q.job())
	}
}
