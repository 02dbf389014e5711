package main

import (
	"flag"
	"os"
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
	if err := fs.Parse(args); err != nil {
		return nil, err
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
