package main

import (
	"slices"
	"testing"
)

// TestServeFlags: each serve setting comes from its flag, else from its
// environment variable, else from the default (CONTRACT.md section 1).
func TestServeFlags(t *testing.T) {
	c, err := parseServeFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.DatabaseURL != "" || c.Demo || c.AdminToken != "" {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv("ALERTD_ADDR", "127.0.0.1:9999")
	t.Setenv("DATABASE_URL", "postgres://env/db")
	t.Setenv("ALERTD_DATA_DIR", "/env/data")
	t.Setenv("ALERTD_ADMIN_TOKEN", "adm_env")
	t.Setenv("ALERTD_DEMO", "yes")
	t.Setenv("ALERTD_WEBHOOK_ALLOW_CIDRS", "10.0.0.0/8, 127.0.0.0/8")
	t.Setenv("ALERTD_TELEGRAM_BOT_TOKEN", "1:env")
	c, err = parseServeFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9999" || c.DatabaseURL != "postgres://env/db" || c.DataDir != "/env/data" || c.AdminToken != "adm_env" ||
		!c.Demo || c.TelegramBotToken != "1:env" || !slices.Equal(c.WebhookAllowCIDRs, []string{"10.0.0.0/8", "127.0.0.0/8"}) {
		t.Errorf("from the environment: %+v", c)
	}
	c, err = parseServeFlags([]string{"--addr", "127.0.0.1:7", "--database-url", "postgres://flag/db", "--data-dir", "/flag",
		"--admin-token", "adm_flag", "--demo=false", "--webhook-allow-cidrs", "", "--telegram-bot-token", "2:flag", "--demo-rate", "5"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:7" || c.DatabaseURL != "postgres://flag/db" || c.DataDir != "/flag" || c.AdminToken != "adm_flag" ||
		c.Demo || c.TelegramBotToken != "2:flag" || len(c.WebhookAllowCIDRs) != 0 || c.DemoRate != 5 {
		t.Errorf("flags over the environment: %+v", c)
	}
	if _, err := parseServeFlags([]string{"extra"}); err == nil {
		t.Error("an argument was accepted")
	}
}
