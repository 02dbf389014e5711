package casearch

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

func wantVerdict(t *testing.T, what string, v Verdict, code string, retry, dailyLeft, minuteLeft int) {
	t.Helper()
	gotCode, gotRetry := "", 0
	if v.Err != nil {
		gotCode, gotRetry = v.Err.Code, v.Err.RetryAfter
		if v.Err.Status != 429 {
			t.Errorf("%s: status %d", what, v.Err.Status)
		}
	}
	if gotCode != code || gotRetry != retry || v.DailyRemaining != dailyLeft || v.MinuteRemaining != minuteLeft || v.MinuteLimit != PerMinute {
		t.Errorf("%s: %q retry %d daily left %d minute left %d (limit %d); want %q %d %d %d", what, gotCode, gotRetry,
			v.DailyRemaining, v.MinuteRemaining, v.MinuteLimit, code, retry, dailyLeft, minuteLeft)
	}
}

func TestQuotaWindows(t *testing.T) {
	q := NewQuota(QuotaOptions{})
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for i := range PerSecond {
		wantVerdict(t, "burst", q.Take("a", 1000, now.Add(time.Duration(i)*time.Millisecond)), "", 0, 999-i, 19-i)
	}
	// The 11th in the same second: refused, not counted.
	wantVerdict(t, "11th", q.Take("a", 1000, now.Add(999*time.Millisecond)), protocol.CodeRateLimited, 1, 990, 10)
	// Another account is not affected.
	wantVerdict(t, "other account", q.Take("b", 5, now), "", 0, 4, 19)
	// The second window started at the first call: 1 s later it is new.
	for i := range PerSecond {
		wantVerdict(t, "second burst", q.Take("a", 1000, now.Add(time.Second)), "", 0, 989-i, 9-i)
	}
	// 20 in the minute window; the 21st is refused with 60 even in a fresh second.
	wantVerdict(t, "21st", q.Take("a", 1000, now.Add(5*time.Second)), protocol.CodeRateLimited, 60, 980, 0)
	wantVerdict(t, "59.9 s", q.Take("a", 1000, now.Add(59900*time.Millisecond)), protocol.CodeRateLimited, 60, 980, 0)
	// The minute window started at the first call.
	wantVerdict(t, "new minute", q.Take("a", 1000, now.Add(time.Minute)), "", 0, 979, 19)
}

func TestQuotaDaily(t *testing.T) {
	q := NewQuota(QuotaOptions{})
	now := time.Date(2026, 5, 10, 23, 0, 0, 0, time.UTC)
	for i := range 3 {
		wantVerdict(t, "allowed", q.Take("a", 3, now.Add(time.Duration(i)*time.Minute)), "", 0, 2-i, 19)
	}
	// Used up: retry_after is the time to 00:00 UTC, rounded up.
	wantVerdict(t, "used up", q.Take("a", 3, now.Add(3*time.Minute+500*time.Millisecond)), protocol.CodeDailyLimitReached, 3420, 0, 20)
	// A raised allowance applies at once; a lowered one refuses.
	wantVerdict(t, "raised", q.Take("a", 5, now.Add(4*time.Minute)), "", 0, 1, 19)
	wantVerdict(t, "lowered", q.Take("a", 2, now.Add(5*time.Minute)), protocol.CodeDailyLimitReached, 3300, 0, 20)
	// A limit of zero refuses everything.
	wantVerdict(t, "zero", q.Take("z", 0, now), protocol.CodeDailyLimitReached, 3600, 0, 20)
	// Midnight UTC resets the day.
	wantVerdict(t, "next day", q.Take("a", 3, time.Date(2026, 5, 11, 0, 0, 0, 0, time.UTC)), "", 0, 2, 19)
}

type usageRecorder struct {
	mu   sync.Mutex
	puts [][]persistence.SearchUsage
	fail int
}

func (r *usageRecorder) PutSearchUsage(_ context.Context, us []persistence.SearchUsage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail > 0 {
		r.fail--
		return context.DeadlineExceeded
	}
	r.puts = append(r.puts, append([]persistence.SearchUsage(nil), us...))
	return nil
}

// queue collects writer jobs; run runs them as the writer would, retrying.
type queue struct {
	mu   sync.Mutex
	jobs []func(context.Context) error
}

func (q *queue) Do(_ string, f func(context.Context) error) {
	q.mu.Lock()
	q.jobs = append(q.jobs, f)
	q.mu.Unlock()
}

func (q *queue) run(t *testing.T) {
	t.Helper()
	q.mu.Lock()
	jobs := q.jobs
	q.jobs = nil
	q.mu.Unlock()
	for _, j := range jobs {
		for attempt := 0; j(context.Background()) != nil; attempt++ {
			if attempt > 3 {
				t.Fatal("job keeps failing")
			}
		}
	}
}

func TestQuotaPersists(t *testing.T) {
	rec := &usageRecorder{fail: 1}
	jobs := &queue{}
	q := NewQuota(QuotaOptions{Jobs: jobs, Store: rec})
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	q.Take("a", 10, now)
	q.Take("a", 10, now)
	q.Take("b", 10, now)
	if len(jobs.jobs) != 1 {
		t.Fatalf("%d jobs queued for 3 calls, want 1", len(jobs.jobs))
	}
	jobs.run(t) // fails once, then writes the same batch
	if len(rec.puts) != 1 || len(rec.puts[0]) != 2 {
		t.Fatalf("writes %+v", rec.puts)
	}
	for _, u := range rec.puts[0] {
		want := map[string]int{"a": 2, "b": 1}[u.AccountID]
		if u.Used != want || !u.Day.Equal(DayStart(now)) {
			t.Errorf("usage %+v, want %d on %v", u, want, DayStart(now))
		}
	}
	// A refused call writes nothing.
	q2 := NewQuota(QuotaOptions{Jobs: jobs, Store: rec})
	q2.Take("c", 0, now)
	if len(jobs.jobs) != 0 {
		t.Errorf("a refused call queued a write")
	}
	// Loading today's counts restores the allowance left.
	q3 := NewQuota(QuotaOptions{})
	q3.Load([]persistence.SearchUsage{{AccountID: "a", Day: DayStart(now), Used: 9}})
	wantVerdict(t, "restored", q3.Take("a", 10, now), "", 0, 0, 19)
	wantVerdict(t, "restored, used up", q3.Take("a", 10, now.Add(time.Second)), protocol.CodeDailyLimitReached, 43199, 0, 19)
	// Yesterday's count does not carry over.
	q4 := NewQuota(QuotaOptions{})
	q4.Load([]persistence.SearchUsage{{AccountID: "a", Day: DayStart(now).Add(-24 * time.Hour), Used: 10}})
	wantVerdict(t, "yesterday", q4.Take("a", 10, now), "", 0, 9, 19)
}
