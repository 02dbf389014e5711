package xapi

import "sync/atomic"

// Stats are the connector's live counters, safe for concurrent use. The
// comment of each names the Prometheus family the metrics issue will expose
// it as (CONTRACT.md section 6 style, label connector="x").
type Stats struct {
	// Posts are stream posts handed to the sink (alertd_upstream_observations_total{kind="post"}).
	Posts atomic.Int64
	// Users are user observations handed to the sink (alertd_upstream_observations_total{kind="user"}).
	Users atomic.Int64
	// Followings are following lists handed to the sink (alertd_upstream_observations_total{kind="following"}).
	Followings atomic.Int64
	// KeepAlives are the stream's keep-alive newlines (alertd_upstream_keepalives_total).
	KeepAlives atomic.Int64
	// Skipped are stream lines without a post: problems, system messages (alertd_upstream_lines_total{result="skipped"}).
	Skipped atomic.Int64
	// Malformed are lines that could not be read as the documented shapes (alertd_upstream_lines_total{result="malformed"}).
	Malformed atomic.Int64
	// Reconnects count stream connections after the first (alertd_upstream_reconnects_total).
	Reconnects atomic.Int64
	// Stalls are streams given up for want of keep-alives (alertd_upstream_stalls_total).
	Stalls atomic.Int64
	// GapMillis add up the time the stream was down between connections (alertd_upstream_gap_seconds_total).
	GapMillis atomic.Int64
	// RuleChanges count rules added plus rules deleted (alertd_upstream_rule_changes_total).
	RuleChanges atomic.Int64
	// RateLimitWaits count calls held back until a rate-limit reset (alertd_upstream_rate_limit_waits_total).
	RateLimitWaits atomic.Int64
	// HTTPErrors count non-2xx answers and transport errors (alertd_upstream_errors_total).
	HTTPErrors atomic.Int64
	// SinkErrors count failed hand-overs to the engine, each retried (alertd_upstream_sink_errors_total).
	SinkErrors atomic.Int64
	// Unmonitored is the number of handles that do not fit the plan's rules (alertd_upstream_unmonitored_handles).
	Unmonitored atomic.Int64
	// LagMillisSum, LagCount and LagMillisMax describe the time from a post's
	// created_at to its hand-over to the engine (alertd_upstream_lag_seconds).
	LagMillisSum, LagCount, LagMillisMax atomic.Int64
}

// Snapshot is a point-in-time copy of Stats.
type Snapshot struct {
	Posts, Users, Followings, KeepAlives, Skipped, Malformed   int64
	Reconnects, Stalls, GapMillis, RuleChanges, RateLimitWaits int64
	HTTPErrors, SinkErrors, Unmonitored                        int64
	LagMillisSum, LagCount, LagMillisMax                       int64
}

// Snapshot copies the counters.
func (s *Stats) Snapshot() Snapshot {
	return Snapshot{
		Posts: s.Posts.Load(), Users: s.Users.Load(), Followings: s.Followings.Load(),
		KeepAlives: s.KeepAlives.Load(), Skipped: s.Skipped.Load(), Malformed: s.Malformed.Load(),
		Reconnects: s.Reconnects.Load(), Stalls: s.Stalls.Load(), GapMillis: s.GapMillis.Load(),
		RuleChanges: s.RuleChanges.Load(), RateLimitWaits: s.RateLimitWaits.Load(),
		HTTPErrors: s.HTTPErrors.Load(), SinkErrors: s.SinkErrors.Load(), Unmonitored: s.Unmonitored.Load(),
		LagMillisSum: s.LagMillisSum.Load(), LagCount: s.LagCount.Load(), LagMillisMax: s.LagMillisMax.Load(),
	}
}

// lag records one post's lag in ms.
func (s *Stats) lag(ms int64) {
	if ms < 0 {
		ms = 0
	}
	s.LagMillisSum.Add(ms)
	s.LagCount.Add(1)
	for {
		cur := s.LagMillisMax.Load()
		if ms <= cur || s.LagMillisMax.CompareAndSwap(cur, ms) {
			return
		}
	}
}
