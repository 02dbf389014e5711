package engine

import (
	"time"

	"github.com/alertd/alertd/protocol"
)

// DefaultRetention is --retention's default: 30 days.
const DefaultRetention = 720 * time.Hour

// Config is everything `alertd serve` is told (CONTRACT.md section 1); the
// command fills it from flags and environment, tests build it directly.
type Config struct {
	Addr              string
	DatabaseURL       string
	DataDir           string
	AdminToken        string
	Demo              bool
	WebhookAllowCIDRs []string
	// TelegramBotToken verifies Telegram Login Widget sign-ins (POST /v1/auth/telegram).
	TelegramBotToken string
	// DemoRate is the demo upstream's observations per second.
	DemoRate float64
	// Timings are the spec's time constants; tests shorten them.
	Timings protocol.Timings
	// Upstream configures the real connectors (wire_upstream.go).
	Upstream UpstreamConfig
	// Retention is how long posts, observations, trace records, profile
	// history, follow changes and the webhook delivery log are kept
	// (--retention); 0 keeps them forever. RetentionEvery is the time
	// between pruning passes (0: a tenth of Retention, at most 10 minutes).
	Retention      time.Duration
	RetentionEvery time.Duration
	// InternalAddr, when set, serves /metrics and /debug/pprof/ there
	// without authentication; empty serves /metrics on Addr behind the
	// admin bearer and no pprof (CONTRACT.md section 6).
	InternalAddr string
}

// DefaultConfig is the configuration of `alertd serve` with no flags.
func DefaultConfig() Config {
	return Config{Addr: "127.0.0.1:8080", DataDir: "./data", DemoRate: 50, Timings: protocol.DefaultTimings(),
		Upstream: DefaultUpstreamConfig(), Retention: DefaultRetention}
}
