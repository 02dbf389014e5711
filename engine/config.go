package engine

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/alertd/alertd/edge"
	ingestapi "github.com/alertd/alertd/edge/api/ingest"
	"github.com/alertd/alertd/engine/cluster"
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
	// Cluster makes this process one node of several (CONTRACT.md section
	// 7, engine/cluster); Cluster.Name empty: one node, no cluster code.
	Cluster cluster.Config
	// IngestFsync is the ingest log's policy (--ingest-fsync): "always"
	// (the default; "" means it too) fsyncs before ingest answers, "off"
	// only writes.
	IngestFsync string
	// IngestBacklogBytes bounds, in bytes of observation lines, what
	// ingest has accepted and the actors have not yet handled
	// (--ingest-backlog-bytes; 0: ingest.DefaultMaxBacklogBytes); ingest
	// answers 503 beyond it, as beyond ingest.MaxBacklog observations.
	IngestBacklogBytes int64
	// WSSend is how WebSocket frames reach the kernel (--ws-send):
	// "io_uring" (DefaultConfig's), many sockets' sends per io_uring_enter
	// (Linux 5.19+; elsewhere, or where io_uring is disabled, the hub logs
	// it once and writes), or "write" ("" means it too), one send(2) per
	// socket's turn. /metrics shows the path in use (alertd_ws_send_path).
	WSSend string
}

// DefaultConfig is the configuration of `alertd serve` with no flags.
func DefaultConfig() Config {
	return Config{Addr: "127.0.0.1:8080", DataDir: "./data", DemoRate: 50, Timings: protocol.DefaultTimings(),
		Upstream: DefaultUpstreamConfig(), Retention: DefaultRetention, Telegram: DefaultTelegramConfig(),
		Limits: edge.DefaultLimits(), Cluster: cluster.Config{Addr: cluster.DefaultAddr}, IngestFsync: "always",
		IngestBacklogBytes: ingestapi.DefaultMaxBacklogBytes, WSSend: "io_uring"}
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

// ErrClusterEmbedded refuses a cluster flag with the embedded store.
var ErrClusterEmbedded = errors.New("a cluster needs PostgreSQL (--database-url): the embedded store belongs to one node")

// CheckCluster refuses cluster settings that cannot work: any cluster flag
// with the embedded store, a bad address or an unwired provider. An empty
// Cluster.Addr becomes the default.
func (c *Config) CheckCluster() error {
	if c.Cluster.Addr == "" {
		c.Cluster.Addr = cluster.DefaultAddr
	}
	set := c.Cluster.Name != "" || c.Cluster.Addr != cluster.DefaultAddr || len(c.Cluster.Peers) > 0 || c.Cluster.Provider != ""
	if !set {
		return nil
	}
	if c.DatabaseURL == "" {
		return ErrClusterEmbedded
	}
	if c.Cluster.Name == "" {
		return errors.New("--cluster-addr, --cluster-peers and --cluster-provider need --cluster-name")
	}
	return c.Cluster.Validate()
}
