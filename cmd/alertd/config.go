package main

import (
	"errors"
	"flag"
	"os"
	"strconv"
	"strings"

	"github.com/alertd/alertd/engine"
)

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envBool(name string) bool {
	switch strings.ToLower(os.Getenv(name)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// parseServeFlags reads the serve flags over their environment defaults.
func parseServeFlags(args []string) (*engine.Config, error) {
	def := engine.DefaultConfig()
	c := &def
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&c.Addr, "addr", envOr("ALERTD_ADDR", def.Addr), "public listener: REST, WebSockets, /health, /admin/v1, /ingest/v1 (ALERTD_ADDR)")
	fs.StringVar(&c.DatabaseURL, "database-url", envOr("DATABASE_URL", ""), "postgres:// URL selects PostgreSQL; empty selects the embedded store (DATABASE_URL)")
	fs.StringVar(&c.DataDir, "data-dir", envOr("ALERTD_DATA_DIR", def.DataDir), "where the embedded store keeps its files (ALERTD_DATA_DIR)")
	fs.StringVar(&c.AdminToken, "admin-token", envOr("ALERTD_ADMIN_TOKEN", ""), "bearer token for /admin/v1 and /ingest/v1; generated into <data-dir>/admin-token when empty (ALERTD_ADMIN_TOKEN)")
	fs.BoolVar(&c.Demo, "demo", envBool("ALERTD_DEMO"), "also run the synthetic upstream and print one ready key per product (ALERTD_DEMO)")
	cidrs := fs.String("webhook-allow-cidrs", envOr("ALERTD_WEBHOOK_ALLOW_CIDRS", ""), "comma-separated CIDRs exempted from the private-address refusal of webhook URLs (ALERTD_WEBHOOK_ALLOW_CIDRS)")
	fs.StringVar(&c.TelegramBotToken, "telegram-bot-token", envOr("ALERTD_TELEGRAM_BOT_TOKEN", ""), "bot token that verifies Telegram logins of the web dashboard; empty refuses them (ALERTD_TELEGRAM_BOT_TOKEN)")
	fs.Float64Var(&c.DemoRate, "demo-rate", def.DemoRate, "observations per second of the --demo upstream")
	envErr := addUpstreamFlags(fs, &c.Upstream)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if envErr != nil {
		return nil, envErr
	}
	if fs.NArg() > 0 {
		return nil, errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, s := range strings.Split(*cidrs, ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.WebhookAllowCIDRs = append(c.WebhookAllowCIDRs, s)
		}
	}
	return c, nil
}

// envInt reads a numeric environment variable; def when unset.
func envInt(name string, def int) (int, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def, errorf("%s: %q is not a number", name, v)
	}
	return n, nil
}

// addUpstreamFlags declares the real connectors' flags (CONTRACT.md section
// 8); the error names an unreadable environment variable.
func addUpstreamFlags(fs *flag.FlagSet, u *engine.UpstreamConfig) error {
	maxRules, err1 := envInt("ALERTD_X_MAX_RULES", u.XMaxRules)
	maxLen, err2 := envInt("ALERTD_X_MAX_RULE_LENGTH", u.XMaxRuleLength)
	fs.StringVar(&u.XBearerToken, "x-bearer-token", envOr("ALERTD_X_BEARER_TOKEN", ""), "app bearer token of the platform's API v2; set = connector on (ALERTD_X_BEARER_TOKEN; prefer the variable: flags show in ps)")
	fs.StringVar(&u.XAPIURL, "x-api-url", envOr("ALERTD_X_API_URL", u.XAPIURL), "base of the platform's API v2 (ALERTD_X_API_URL)")
	fs.IntVar(&u.XMaxRules, "x-max-rules", maxRules, "filtered-stream rules the API plan allows (ALERTD_X_MAX_RULES; Pro 1000, Enterprise 25000)")
	fs.IntVar(&u.XMaxRuleLength, "x-max-rule-length", maxLen, "characters per filtered-stream rule the API plan allows (ALERTD_X_MAX_RULE_LENGTH; Pro 1024, Enterprise 2048)")
	fs.DurationVar(&u.XProfileEvery, "x-profile-every", u.XProfileEvery, "how often monitored profiles are re-read through the API v2 (each read is billed)")
	fs.DurationVar(&u.XFollowingEvery, "x-following-every", u.XFollowingEvery, "how often a following list is re-read through the API v2 (billed per account listed)")
	fs.StringVar(&u.SolanaRPCWSURL, "solana-rpc-ws-url", envOr("ALERTD_SOLANA_RPC_WS_URL", ""), "a Solana JSON-RPC WebSocket endpoint; set = launchpad connector on (ALERTD_SOLANA_RPC_WS_URL)")
	fs.StringVar(&u.LaunchpadProgram, "launchpad-program", envOr("ALERTD_LAUNCHPAD_PROGRAM", u.LaunchpadProgram), "the launchpad program id (ALERTD_LAUNCHPAD_PROGRAM)")
	return errors.Join(err1, err2)
}
