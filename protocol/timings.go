package protocol

import "time"

// Timings holds every time constant of the spec in one place, with the spec's
// values as defaults, so that tests can shorten them (CONTRACT.md section 1).
type Timings struct {
	// B2B realtime WebSocket (spec 2).
	LoginWindow        time.Duration // HELLO to LOGIN
	HeartbeatInterval  time.Duration // announced in HELLO
	HeartbeatTimeout   time.Duration // closed this long after the last heartbeat
	InboundSilence     time.Duration // closed with no inbound frame for this long
	WriteBlock         time.Duration // a write blocked this long closes the socket
	FailedLoginWindow  time.Duration // 5 failed logins within this window...
	IPBlock            time.Duration // ...block the IP and the key this long
	BlockedAcceptEvery time.Duration // while blocked, the realtime URL accepts once per this to deliver DISCONNECT
	RealtimeMaxAge     time.Duration // posts older than this are dropped
	LateMaxAge         time.Duration // late_delivery: oldest late post delivered
	ReplayWindow       time.Duration // follow and late-delivery replay after READY
	TraceWindow        time.Duration // non-tweet trace ids match within this window
	SocialDiffWindow   time.Duration // GET /v1/dt/social/diff covers this trailing window

	// Tweet Alerts WebSocket (spec 1).
	XGPingInterval time.Duration
	XGPongDeadline time.Duration
	XGFrameWindow  time.Duration // 10 inbound frames per window
	XGMaxPostAge   time.Duration

	// Webhooks (spec 1 and 3).
	WebhookBackoff     []time.Duration // between attempts
	WebhookTimeout     time.Duration   // per attempt
	WebhookPropagation time.Duration   // changes effective within

	// Products (spec 3).
	ECAExpiry     time.Duration
	ECAMatchesTTL time.Duration
	// SAIntervals are what the Search Alerts interval options 1m, 5m, 10m,
	// 30m, 1h and 6h stand for, in that order (tests shorten them).
	SAIntervals []time.Duration
	// ProductPingInterval is how often the product WebSockets (trending, pf,
	// eca, sa) ping an otherwise quiet client.
	ProductPingInterval time.Duration

	// REST.
	RateWindow time.Duration // Tweet Alerts REST window

	// CA Search (spec 2).
	SearchWindow     time.Duration // default window; what the in-memory index holds
	SearchRateSecond time.Duration // 10 calls per account per this window
	SearchRateMinute time.Duration // 20 calls per account per this window
}

// DefaultTimings returns the spec's values.
func DefaultTimings() Timings {
	return Timings{
		LoginWindow:        15 * time.Second,
		HeartbeatInterval:  30 * time.Second,
		HeartbeatTimeout:   120 * time.Second,
		InboundSilence:     180 * time.Second,
		WriteBlock:         5 * time.Second,
		FailedLoginWindow:  60 * time.Second,
		IPBlock:            time.Hour,
		BlockedAcceptEvery: time.Minute,
		RealtimeMaxAge:     30 * time.Second,
		LateMaxAge:         24 * time.Hour,
		ReplayWindow:       15 * time.Minute,
		TraceWindow:        10 * time.Second,
		SocialDiffWindow:   7 * 24 * time.Hour,

		XGPingInterval: 30 * time.Second,
		XGPongDeadline: 10 * time.Second,
		XGFrameWindow:  time.Second,
		XGMaxPostAge:   60 * time.Second,

		WebhookBackoff:     []time.Duration{time.Second, 2 * time.Second},
		WebhookTimeout:     5 * time.Second,
		WebhookPropagation: 30 * time.Second,

		ECAExpiry:     4 * time.Hour,
		ECAMatchesTTL: 24 * time.Hour,
		SAIntervals: []time.Duration{time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute,
			time.Hour, 6 * time.Hour},
		ProductPingInterval: 30 * time.Second,

		RateWindow: time.Second,

		SearchWindow:     24 * time.Hour,
		SearchRateSecond: time.Second,
		SearchRateMinute: time.Minute,
	}
}

// Size limits of the spec.
const (
	MaxBodyBytes       = 64 * 1024        // public REST
	MaxIngestBodyBytes = 16 * 1024 * 1024 // ingest API
	MaxFailedLogins    = 5
)
