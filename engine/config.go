package engine

import "github.com/alertd/alertd/protocol"

// Config is everything `alertd serve` is told (CONTRACT.md section 1); the
// command fills it from flags and environment, tests build it directly.
type Config struct {
	Addr              string
	DatabaseURL       string
	DataDir           string
	AdminToken        string
	Demo              bool
	WebhookAllowCIDRs []string
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
}

// DefaultConfig is the configuration of `alertd serve` with no flags.
func DefaultConfig() Config {
	return Config{Addr: "127.0.0.1:8080", DataDir: "./data", DemoRate: 50, Timings: protocol.DefaultTimings(),
		Upstream: DefaultUpstreamConfig(), Telegram: DefaultTelegramConfig()}
}
