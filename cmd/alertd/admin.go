package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const adminUsage = `usage: alertd admin [--server URL] [--admin-token T] <command> [flags]

commands:
  issue  --product P [--account ID] [--telegram-user-id N] [subscription flags]
                                                           issue a key (a new account when --account is absent;
                                                           --telegram-user-id links that Telegram user to it)
  change --account ID --product P [subscription flags]     change a subscription
  revoke KEY                                               deactivate a key

subscription flags: --plan, --modules a,b, --max-handles N, --max-tweets N,
  --max-wallets N, --ca-search-daily-limit N|none, --late-delivery=true|false,
  --expires-at RFC3339|none
`

// runAdmin is a thin CLI over the admin API (CONTRACT.md section 2).
func runAdmin(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), adminUsage) }
	server := fs.String("server", envOr("ALERTD_SERVER", "http://"+envOr("ALERTD_ADDR", "127.0.0.1:8080")), "engine base URL (ALERTD_SERVER)")
	token := fs.String("admin-token", envOr("ALERTD_ADMIN_TOKEN", ""), "admin token; read from <data-dir>/admin-token when empty (ALERTD_ADMIN_TOKEN)")
	dataDir := fs.String("data-dir", envOr("ALERTD_DATA_DIR", "./data"), "where to find admin-token (ALERTD_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errorf("missing command")
	}
	if *token == "" {
		b, err := os.ReadFile(filepath.Join(*dataDir, "admin-token"))
		if err != nil {
			return errorf("no admin token: pass --admin-token or run where %s/admin-token exists", *dataDir)
		}
		*token = strings.TrimSpace(string(b))
	}
	c := adminClient{base: strings.TrimRight(*server, "/"), token: *token, out: out}
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	switch cmd {
	case "issue", "change":
		body, account, product, err := parseSubscriptionFlags(cmd, rest)
		if err != nil {
			return err
		}
		if cmd == "issue" {
			body["product"] = product
			if account != "" {
				body["account_id"] = account
			}
			return c.do("POST", "/admin/v1/keys", body)
		}
		if account == "" {
			return errorf("change needs --account")
		}
		return c.do("PATCH", "/admin/v1/accounts/"+url.PathEscape(account)+"/products/"+url.PathEscape(product), body)
	case "revoke":
		if len(rest) != 1 {
			return errorf("usage: alertd admin revoke KEY")
		}
		return c.do("DELETE", "/admin/v1/keys/"+url.PathEscape(rest[0]), nil)
	}
	return errorf("unknown admin command %q", cmd)
}

// parseSubscriptionFlags turns the flags that were given into an admin body.
func parseSubscriptionFlags(cmd string, args []string) (body map[string]any, account, product string, err error) {
	fs := flag.NewFlagSet("admin "+cmd, flag.ContinueOnError)
	fs.StringVar(&account, "account", "", "account id")
	fs.StringVar(&product, "product", "", "product: xg, dt, cw, ct, et, trend, pf, eca, sa")
	plan := fs.String("plan", "", "plan name")
	modules := fs.String("modules", "", "dt modules, comma-separated")
	maxHandles := fs.Int("max-handles", 0, "handle ceiling (dt, cw, ct)")
	maxTweets := fs.Int("max-tweets", 0, "tweet plan (et)")
	maxWallets := fs.Int("max-wallets", 0, "wallet plan (pf)")
	caLimit := fs.String("ca-search-daily-limit", "", "CA Search searches per day, or none (dt)")
	late := fs.Bool("late-delivery", false, "late delivery module (dt)")
	expires := fs.String("expires-at", "", "RFC 3339 end date, or none")
	var tgUser *int64
	if cmd == "issue" {
		tgUser = fs.Int64("telegram-user-id", 0, "link this Telegram user to the account (issue only)")
	}
	if err = fs.Parse(args); err != nil {
		return nil, "", "", err
	}
	if product == "" {
		return nil, "", "", errorf("%s needs --product", cmd)
	}
	body = map[string]any{}
	var ferr error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "plan":
			body["plan"] = *plan
		case "modules":
			body["modules"] = splitList(*modules)
		case "max-handles":
			body["max_handles"] = *maxHandles
		case "max-tweets":
			body["max_tweets"] = *maxTweets
		case "max-wallets":
			body["max_wallets"] = *maxWallets
		case "late-delivery":
			body["late_delivery"] = *late
		case "telegram-user-id":
			body["telegram_user_id"] = *tgUser
		case "ca-search-daily-limit":
			if *caLimit == "none" {
				body["ca_search_daily_limit"] = nil
			} else if n, err := strconv.Atoi(*caLimit); err == nil {
				body["ca_search_daily_limit"] = n
			} else {
				ferr = errorf("--ca-search-daily-limit must be a number or none")
			}
		case "expires-at":
			if *expires == "none" {
				body["expires_at"] = nil
			} else if _, err := time.Parse(time.RFC3339, *expires); err == nil {
				body["expires_at"] = *expires
			} else {
				ferr = errorf("--expires-at must be RFC 3339 or none")
			}
		}
	})
	return body, account, product, ferr
}

func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

type adminClient struct {
	base, token string
	out         io.Writer
}

// do sends one admin request and prints the answer's data as indented JSON.
func (c adminClient) do(method, path string, body map[string]any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var env struct {
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error string          `json:"error"`
		Code  string          `json:"code"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if !env.OK {
		return errorf("HTTP %d %s: %s", resp.StatusCode, env.Code, env.Error)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, env.Data, "", "  ") != nil {
		pretty.Write(env.Data)
	}
	fmt.Fprintln(c.out, pretty.String())
	return nil
}
