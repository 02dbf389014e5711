package casearch

import (
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

// twoNodes are two quotas that exchange their counts after every call, as
// a cluster's feed does (engine/cluster.RateCounts), with a fake clock.
type twoNodes struct {
	q       [2]*Quota
	counted [2][]string
}

func newTwoNodes() *twoNodes {
	n := &twoNodes{}
	for i := range n.q {
		n.q[i] = NewQuota(QuotaOptions{})
		n.q[i].Share(func(a string) { n.counted[i] = append(n.counted[i], a) })
	}
	return n
}

// take calls on node i, then announces node i's counts to the other.
func (n *twoNodes) take(i int, account string, daily int, now time.Time) Verdict {
	v := n.q[i].Take(account, daily, now)
	for _, a := range n.counted[i] {
		n.q[1-i].Heard([]string{"a", "b"}[i], a, n.q[i].Announce(a))
	}
	n.counted[i] = nil
	return v
}

func TestQuotaAcrossNodes(t *testing.T) {
	t.Parallel()
	n := newTwoNodes()
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	// 10 a second between the two nodes, the headers counting both.
	for i := range PerSecond {
		wantVerdict(t, "burst", n.take(i%2, "a", 1000, now.Add(time.Duration(i)*time.Millisecond)), "", 0, 999-i, 19-i)
	}
	wantVerdict(t, "11th on a", n.take(0, "a", 1000, now.Add(500*time.Millisecond)), protocol.CodeRateLimited, 1, 990, 10)
	wantVerdict(t, "11th on b", n.take(1, "a", 1000, now.Add(600*time.Millisecond)), protocol.CodeRateLimited, 1, 990, 10)
	// 20 a minute between them.
	for i := range PerSecond {
		wantVerdict(t, "second burst", n.take(i%2, "a", 1000, now.Add(time.Second)), "", 0, 989-i, 9-i)
	}
	wantVerdict(t, "21st", n.take(1, "a", 1000, now.Add(5*time.Second)), protocol.CodeRateLimited, 60, 980, 0)
	wantVerdict(t, "new minute", n.take(1, "a", 1000, now.Add(time.Minute)), "", 0, 979, 19)
}

func TestQuotaDailyAcrossNodes(t *testing.T) {
	t.Parallel()
	n := newTwoNodes()
	now := time.Date(2026, 5, 10, 23, 0, 0, 0, time.UTC)
	wantVerdict(t, "on a", n.take(0, "a", 3, now), "", 0, 2, 19)
	wantVerdict(t, "on b", n.take(1, "a", 3, now.Add(time.Minute)), "", 0, 1, 19)
	wantVerdict(t, "on a again", n.take(0, "a", 3, now.Add(2*time.Minute)), "", 0, 0, 19)
	for i := range n.q {
		wantVerdict(t, "used up", n.q[i].Take("a", 3, now.Add(3*time.Minute)), protocol.CodeDailyLimitReached, 3420, 0, 20)
	}
	// An announcement with nothing new of the day adds nothing; a delta of
	// a day already over is ignored; the next day's starts the count anew.
	n.q[1].Heard("a", "a", n.q[0].Announce("a"))
	n.q[1].Heard("a", "a", Counts{Day: DayStart(now).Add(-24 * time.Hour), Delta: 5})
	tomorrow := DayStart(now).Add(24 * time.Hour)
	n.q[1].Heard("a", "a", Counts{Day: tomorrow, Delta: 2})
	wantVerdict(t, "tomorrow on b", n.q[1].Take("a", 3, tomorrow.Add(time.Hour)), "", 0, 0, 19)
	// A's own calls of yesterday not yet announced are not tomorrow's.
	wantVerdict(t, "tomorrow on a", n.take(0, "a", 3, tomorrow.Add(time.Hour)), "", 0, 2, 19)
	if got := n.q[1].Take("a", 3, tomorrow.Add(2*time.Hour)); got.Err == nil || got.Err.Code != protocol.CodeDailyLimitReached {
		t.Fatalf("b after a's call of tomorrow: %+v, want daily_limit_reached", got)
	}
}
