package launchpad

import "sync/atomic"

// Stats are the connector's live counters, safe for concurrent use. The
// comment of each names the Prometheus family the metrics issue will expose
// it as (CONTRACT.md section 6 style, label connector="launchpad").
type Stats struct {
	// Launches and Graduations are observations handed to the sink (alertd_upstream_observations_total{kind="launchpad"}).
	Launches, Graduations atomic.Int64
	// Notifications are logsNotification messages read (alertd_upstream_messages_total).
	Notifications atomic.Int64
	// Skipped are events of other kinds and failed transactions (alertd_upstream_lines_total{result="skipped"}).
	Skipped atomic.Int64
	// Malformed are messages or event data that could not be read (alertd_upstream_lines_total{result="malformed"}).
	Malformed atomic.Int64
	// Reconnects count connections after the first (alertd_upstream_reconnects_total).
	Reconnects atomic.Int64
	// Backfilled are transactions read back after a reconnect (alertd_upstream_backfilled_total).
	Backfilled atomic.Int64
	// SinkErrors count refused hand-overs, each retried (alertd_upstream_sink_errors_total).
	SinkErrors atomic.Int64
	// LagMillisSum, LagCount and LagMillisMax describe the time from an
	// event's on-chain timestamp to its hand-over (alertd_upstream_lag_seconds).
	LagMillisSum, LagCount, LagMillisMax atomic.Int64
}

// Snapshot is a point-in-time copy of Stats.
type Snapshot struct {
	Launches, Graduations, Notifications, Skipped, Malformed int64
	Reconnects, Backfilled, SinkErrors                       int64
	LagMillisSum, LagCount, LagMillisMax                     int64
}

// Snapshot copies the counters.
func (s *Stats) Snapshot() Snapshot {
	return Snapshot{Launches: s.Launches.Load(), Graduations: s.Graduations.Load(), Notifications: s.Notifications.Load(),
		Skipped: s.Skipped.Load(), Malformed: s.Malformed.Load(), Reconnects: s.Reconnects.Load(), Backfilled: s.Backfilled.Load(),
		SinkErrors: s.SinkErrors.Load(), LagMillisSum: s.LagMillisSum.Load(), LagCount: s.LagCount.Load(), LagMillisMax: s.LagMillisMax.Load()}
}

func (s *Stats) lag(ms int64) {
	ms = max(ms, 0)
	s.LagMillisSum.Add(ms)
	s.LagCount.Add(1)
	for {
		cur := s.LagMillisMax.Load()
		if ms <= cur || s.LagMillisMax.CompareAndSwap(cur, ms) {
			return
		}
	}
}
