package engine

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/alertd/alertd/edge"
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
	// TrustedProxies are the CIDRs (or single addresses) of reverse proxies
	// whose X-Forwarded-For / X-Real-IP name the client (--trusted-proxies).
	TrustedProxies []string
	// Listener limits (--max-conns and the rest); zero fields take the
	// defaults of DefaultConfig.
	Limits edge.Limits
	// WSAllowedOrigins are origins (scheme://host[:port]) besides the
	// server's own from which /v1/ws may be opened with the dashboard's
	// session cookie (--ws-allowed-origins).
	WSAllowedOrigins []string
	// TelegramBotToken runs the chat-messenger bot and verifies Telegram
	// Login Widget sign-ins (POST /v1/auth/telegram); empty: neither.
	TelegramBotToken string
	// Telegram configures the bot (wire_chat.go).
	Telegram TelegramConfig
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
	// IngestFsync is the ingest log's policy (--ingest-fsync): "always"
	// (the default; "" means it too) fsyncs before ingest answers, "off"
	// only writes.
	IngestFsync string
}

// DefaultConfig is the configuration of `alertd serve` with no flags.
func DefaultConfig() Config {
	return Config{Addr: "127.0.0.1:8080", DataDir: "./data", DemoRate: 50, Timings: protocol.DefaultTimings(),
		Upstream: DefaultUpstreamConfig(), Retention: DefaultRetention, Telegram: DefaultTelegramConfig(),
		Limits: edge.DefaultLimits(), IngestFsync: "always"}
}

// ParseTrustedProxies reads --trusted-proxies: CIDRs, or single addresses
// (a /32 or /128).
func ParseTrustedProxies(in []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %q is not a CIDR or an address", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
