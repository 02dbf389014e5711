package main

// The settings of `alertd serve`: one table of flags (serveFlags), each with
// its environment variable, read with the precedence of CONTRACT.md
// section 6: flag, then environment, then the --config file, then default.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/alertd/alertd/engine"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

// serveSettings is what the serve flags fill: the engine's Config and the
// settings of the command itself.
type serveSettings struct {
	cfg         engine.Config
	configFile  string
	logLevel    slog.Level
	checkConfig bool
	cidrs       string // --webhook-allow-cidrs as given; parsed into cfg
	proxies     string // --trusted-proxies as given; parsed into cfg
	origins     string // --ws-allowed-origins as given; parsed into cfg
	peers       string // --cluster-peers as given; parsed into cfg
}

// serveFlag is one setting of `alertd serve`. The table is the one place a
// setting is declared: the flag set, the environment, the config file and
// (later) the README's settings table are all read from it.
type serveFlag struct {
	Name  string // the flag without dashes; also its key in the config file
	Env   string // environment variable; "" for none
	Usage string
	// bind defines the flag on fs, bound to its field of s; the field's
	// value when bind runs is the default.
	bind func(fs *flag.FlagSet, s *serveSettings, name, usage string)
	// notInFile: a flag about the command line itself, refused in a file.
	notInFile bool
}

// serveFlags are the settings of `alertd serve`, in --help order. README.md's
// settings table is rendered from them (readme_test.go):
//
//go:generate go test -run ^TestREADMESettings$ -update-readme .
var serveFlags = []serveFlag{
	{Name: "config", Env: "ALERTD_CONFIG", notInFile: true,
		Usage: "a configuration file (.yaml, .yml or .toml) holding any of these settings by flag name without dashes",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.StringVar(&s.configFile, n, s.configFile, u) }},
	{Name: "addr", Env: "ALERTD_ADDR",
		Usage: "public listener: REST, WebSockets, /health, /admin/v1, /ingest/v1",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.StringVar(&s.cfg.Addr, n, s.cfg.Addr, u) }},
	{Name: "internal-addr", Env: "ALERTD_INTERNAL_ADDR",
		Usage: "listener for /metrics and /debug/pprof/ without authentication; empty serves /metrics on --addr behind the admin bearer, and no pprof",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.InternalAddr, n, s.cfg.InternalAddr, u)
		}},
	{Name: "database-url", Env: "DATABASE_URL",
		Usage: "a postgres:// URL selects PostgreSQL; empty selects the embedded store",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.DatabaseURL, n, s.cfg.DatabaseURL, u)
		}},
	{Name: "data-dir", Env: "ALERTD_DATA_DIR",
		Usage: "where the embedded store keeps its files, the ingest log (ingest-log/, on PostgreSQL too: the node's own disk) and the generated admin-token; one process per data dir (a second one exits, refused by the lock on <data-dir>/LOCK)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.DataDir, n, s.cfg.DataDir, u)
		}},
	{Name: "admin-token", Env: "ALERTD_ADMIN_TOKEN",
		Usage: "bearer token for /admin/v1 and /ingest/v1; generated into <data-dir>/admin-token when empty",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.AdminToken, n, s.cfg.AdminToken, u)
		}},
	{Name: "demo", Env: "ALERTD_DEMO",
		Usage: "also run the synthetic upstream and print one ready key per product",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.Var((*boolValue)(&s.cfg.Demo), n, u) }},
	{Name: "demo-rate",
		Usage: "observations per second of the --demo upstream",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.Float64Var(&s.cfg.DemoRate, n, s.cfg.DemoRate, u)
		}},
	{Name: "webhook-allow-cidrs", Env: "ALERTD_WEBHOOK_ALLOW_CIDRS",
		Usage: "comma-separated CIDRs exempted from the private-address refusal of webhook URLs",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.StringVar(&s.cidrs, n, s.cidrs, u) }},
	{Name: "trusted-proxies", Env: "ALERTD_TRUSTED_PROXIES",
		Usage: "comma-separated CIDRs of reverse proxies whose X-Forwarded-For / X-Real-IP name the client (IP block, logs); empty trusts none",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.StringVar(&s.proxies, n, s.proxies, u) }},
	{Name: "max-conns", Env: "ALERTD_MAX_CONNS",
		Usage: "open HTTP connections at most (WebSockets leave the count once upgraded); more wait in the kernel's backlog",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.IntVar(&s.cfg.Limits.MaxConns, n, s.cfg.Limits.MaxConns, u)
		}},
	{Name: "max-conns-per-ip", Env: "ALERTD_MAX_CONNS_PER_IP",
		Usage: "open HTTP connections at most from one peer address",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.IntVar(&s.cfg.Limits.MaxConnsPerIP, n, s.cfg.Limits.MaxConnsPerIP, u)
		}},
	{Name: "idle-timeout", Env: "ALERTD_IDLE_TIMEOUT",
		Usage: "keep-alive connections idle this long are closed",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.DurationVar(&s.cfg.Limits.IdleTimeout, n, s.cfg.Limits.IdleTimeout, u)
		}},
	{Name: "max-header-bytes", Env: "ALERTD_MAX_HEADER_BYTES",
		Usage: "a request header larger than this is refused with 431",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.IntVar(&s.cfg.Limits.MaxHeaderBytes, n, s.cfg.Limits.MaxHeaderBytes, u)
		}},
	{Name: "max-pending-sockets", Env: "ALERTD_MAX_PENDING_SOCKETS",
		Usage: "B2B realtime sockets upgraded but not yet logged in at most; more are refused with 503 before the upgrade",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.IntVar(&s.cfg.Limits.MaxPending, n, s.cfg.Limits.MaxPending, u)
		}},
	{Name: "ws-allowed-origins", Env: "ALERTD_WS_ALLOWED_ORIGINS",
		Usage: "comma-separated origins (https://host[:port]) besides the server's own that may open /v1/ws with the dashboard's session cookie",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.StringVar(&s.origins, n, s.origins, u) }},
	{Name: "telegram-bot-token", Env: "ALERTD_TELEGRAM_BOT_TOKEN",
		Usage: "the chat bot's token (runs the bot, verifies Telegram logins of the web dashboard); empty switches both off",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.TelegramBotToken, n, s.cfg.TelegramBotToken, u)
		}},
	{Name: "telegram-api-url", Env: "ALERTD_TELEGRAM_API_URL",
		Usage: "Bot API base; methods are called as <base>/bot<token>/<method>",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Telegram.APIURL, n, s.cfg.Telegram.APIURL, u)
		}},
	{Name: "x-bearer-token", Env: "ALERTD_X_BEARER_TOKEN",
		Usage: "app bearer token of the platform's API v2; set = connector on (prefer the variable: flags show in ps)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Upstream.XBearerToken, n, s.cfg.Upstream.XBearerToken, u)
		}},
	{Name: "x-api-url", Env: "ALERTD_X_API_URL",
		Usage: "base of the platform's API v2",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Upstream.XAPIURL, n, s.cfg.Upstream.XAPIURL, u)
		}},
	{Name: "x-max-rules", Env: "ALERTD_X_MAX_RULES",
		Usage: "filtered-stream rules the API plan allows (Pro 1000, Enterprise 25000)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.IntVar(&s.cfg.Upstream.XMaxRules, n, s.cfg.Upstream.XMaxRules, u)
		}},
	{Name: "x-max-rule-length", Env: "ALERTD_X_MAX_RULE_LENGTH",
		Usage: "characters per filtered-stream rule the API plan allows (Pro 1024, Enterprise 2048)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.IntVar(&s.cfg.Upstream.XMaxRuleLength, n, s.cfg.Upstream.XMaxRuleLength, u)
		}},
	{Name: "x-profile-every",
		Usage: "how often monitored profiles are re-read through the API v2 (each read is billed)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.DurationVar(&s.cfg.Upstream.XProfileEvery, n, s.cfg.Upstream.XProfileEvery, u)
		}},
	{Name: "x-following-every",
		Usage: "how often a following list is re-read through the API v2 (billed per account listed)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.DurationVar(&s.cfg.Upstream.XFollowingEvery, n, s.cfg.Upstream.XFollowingEvery, u)
		}},
	{Name: "solana-rpc-ws-url", Env: "ALERTD_SOLANA_RPC_WS_URL",
		Usage: "a Solana JSON-RPC WebSocket endpoint; set = launchpad connector on",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Upstream.SolanaRPCWSURL, n, s.cfg.Upstream.SolanaRPCWSURL, u)
		}},
	{Name: "launchpad-program", Env: "ALERTD_LAUNCHPAD_PROGRAM",
		Usage: "the launchpad program id",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Upstream.LaunchpadProgram, n, s.cfg.Upstream.LaunchpadProgram, u)
		}},
	{Name: "retention", Env: "ALERTD_RETENTION",
		Usage: "posts, observations, trace records, profile history and webhook delivery logs older than this are deleted, in small batches; 0 keeps them forever",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.DurationVar(&s.cfg.Retention, n, s.cfg.Retention, u)
		}},
	{Name: "cluster-name", Env: "ALERTD_CLUSTER_NAME",
		Usage: "empty = one node; set = join the cluster of that name (needs --database-url)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Cluster.Name, n, s.cfg.Cluster.Name, u)
		}},
	{Name: "cluster-addr", Env: "ALERTD_CLUSTER_ADDR",
		Usage: "this node's cluster listener, host:port (the address other nodes dial; on kubernetes the pod's IP); the automanaged membership also uses port + 1",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Cluster.Addr, n, s.cfg.Cluster.Addr, u)
		}},
	{Name: "cluster-peers", Env: "ALERTD_CLUSTER_PEERS",
		Usage: "automanaged: comma-separated --cluster-addr of the members to find each other through; etcd: the etcd endpoints (host:port, comma-separated); consul: the Consul agent (host:port; empty: CONSUL_HTTP_ADDR or 127.0.0.1:8500); kubernetes: empty",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.StringVar(&s.peers, n, s.peers, u) }},
	{Name: "cluster-provider", Env: "ALERTD_CLUSTER_PROVIDER",
		Usage: "how members find each other: automanaged (empty: the default), etcd, consul or kubernetes (the in-cluster config; in a binary built with -tags kubernetes); an unreachable etcd, Consul agent or Kubernetes API fails the start within 10 s",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.Cluster.Provider, n, s.cfg.Cluster.Provider, u)
		}},
	{Name: "ingest-fsync", Env: "ALERTD_INGEST_FSYNC",
		Usage: "always: POST /ingest/v1/observations answers once its lines are fsynced to the ingest log under <data-dir>/ingest-log (they survive a crash and a power cut); off: once written to the file (they survive a crash of the process, not of the machine; for benchmarks)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.IngestFsync, n, s.cfg.IngestFsync, u)
		}},
	{Name: "ingest-backlog-bytes", Env: "ALERTD_INGEST_BACKLOG_BYTES",
		Usage: "bytes of accepted observation lines waiting for their actors (their decoded form takes about as much again) beyond which ingest answers 503 with Retry-After, as beyond 200,000 observations",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.Int64Var(&s.cfg.IngestBacklogBytes, n, s.cfg.IngestBacklogBytes, u)
		}},
	{Name: "ws-send", Env: "ALERTD_WS_SEND",
		Usage: "how WebSocket frames reach the kernel: io_uring, many sockets' sends per io_uring_enter (Linux 5.19 or later; where io_uring is unavailable, say refused by a container's seccomp profile, the server logs why once and writes); write, one send(2) per socket's turn. /metrics shows the path in use (alertd_ws_send_path)",
		bind: func(fs *flag.FlagSet, s *serveSettings, n, u string) {
			fs.StringVar(&s.cfg.WSSend, n, s.cfg.WSSend, u)
		}},
	{Name: "log-level", Env: "ALERTD_LOG_LEVEL",
		Usage: "debug, info, warn or error",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.Var((*levelValue)(&s.logLevel), n, u) }},
	{Name: "check-config", notInFile: true,
		Usage: "validate the settings, print a one-line verdict and exit (non-zero with the reason when invalid)",
		bind:  func(fs *flag.FlagSet, s *serveSettings, n, u string) { fs.BoolVar(&s.checkConfig, n, s.checkConfig, u) }},
}

// newServeFlagSet binds every serve flag to s; s's values are the defaults.
func newServeFlagSet(s *serveSettings) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; --help prints serveUsage
	for _, f := range serveFlags {
		u := f.Usage
		if f.Env != "" {
			u += " (" + f.Env + ")"
		}
		f.bind(fs, s, f.Name, u)
	}
	return fs
}

// defaultServeSettings are the settings of `alertd serve` with nothing set.
func defaultServeSettings() *serveSettings {
	return &serveSettings{cfg: engine.DefaultConfig(), logLevel: slog.LevelInfo}
}

// environ looks up an environment variable (os.LookupEnv, or a map in tests).
type environ func(name string) (string, bool)

// parseServeFlags reads the serve settings from args, the environment and
// the --config file, flag first, then environment, then file, then default.
// readFile reads the config file (os.ReadFile; tests pass a fake).
func parseServeFlags(args []string, env environ, readFile func(string) ([]byte, error)) (*serveSettings, error) {
	s := defaultServeSettings()
	fs := newServeFlagSet(s)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })

	// Layers, lowest first: the file, the environment, the flags given.
	k := koanf.New(".")
	if !explicit["config"] {
		if v, ok := env("ALERTD_CONFIG"); ok && v != "" {
			s.configFile = v
		}
	}
	fromFile := map[string]bool{}
	if s.configFile != "" {
		file, err := loadConfigFile(s.configFile, readFile)
		if err != nil {
			return nil, err
		}
		for _, key := range file.Keys() {
			fromFile[key] = true
		}
		if err := k.Merge(file); err != nil {
			return nil, err
		}
	}
	fromEnv := map[string]any{}
	for _, f := range serveFlags {
		if f.Env == "" || f.Name == "config" {
			continue
		}
		if v, ok := env(f.Env); ok && v != "" { // empty counts as unset, as compose's ${X:-} gives
			fromEnv[f.Name] = v
		}
	}
	given := map[string]any{}
	for name := range explicit {
		given[name] = fs.Lookup(name).Value.String()
	}
	for _, layer := range []map[string]any{fromEnv, given} {
		if err := k.Load(confmap.Provider(layer, ""), nil); err != nil {
			return nil, err
		}
	}

	// Apply what the flags did not set: an environment value or a file value.
	for _, f := range serveFlags {
		if explicit[f.Name] || f.Name == "config" || !k.Exists(f.Name) {
			continue
		}
		source := "config file " + s.configFile
		if _, ok := fromEnv[f.Name]; ok {
			source = f.Env
		}
		if err := fs.Set(f.Name, settingString(k.Get(f.Name))); err != nil {
			return nil, fmt.Errorf("%s: invalid %s: %v", source, f.Name, err)
		}
	}
	for _, c := range strings.Split(s.cidrs, ",") {
		if c = strings.TrimSpace(c); c != "" {
			s.cfg.WebhookAllowCIDRs = append(s.cfg.WebhookAllowCIDRs, c)
		}
	}
	for _, c := range strings.Split(s.proxies, ",") {
		if c = strings.TrimSpace(c); c != "" {
			s.cfg.TrustedProxies = append(s.cfg.TrustedProxies, c)
		}
	}
	for _, c := range strings.Split(s.origins, ",") {
		if c = strings.TrimSpace(c); c != "" {
			s.cfg.WSAllowedOrigins = append(s.cfg.WSAllowedOrigins, c)
		}
	}
	for _, c := range strings.Split(s.peers, ",") {
		if c = strings.TrimSpace(c); c != "" {
			s.cfg.Cluster.Peers = append(s.cfg.Cluster.Peers, c)
		}
	}
	return s, nil
}

// loadConfigFile parses a YAML or TOML file (by its extension) and refuses
// keys that are not serve settings, so that a typo does not pass silently.
func loadConfigFile(path string, readFile func(string) ([]byte, error)) (*koanf.Koanf, error) {
	var parser koanf.Parser
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		parser = yaml.Parser()
	case ".toml":
		parser = toml.Parser()
	default:
		return nil, fmt.Errorf("config file %s: unknown format; use .yaml, .yml or .toml", path)
	}
	raw, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	file := koanf.New(".")
	if err := file.Load(rawbytes.Provider(raw), parser); err != nil {
		return nil, fmt.Errorf("config file %s: %v", path, oneLine(err))
	}
	known := map[string]bool{}
	for _, f := range serveFlags {
		known[f.Name] = !f.notInFile
	}
	keys := file.Keys()
	sort.Strings(keys)
	for _, key := range keys {
		if !known[key] {
			return nil, fmt.Errorf("config file %s: unknown setting %q", path, key)
		}
	}
	return file, nil
}

// settingString renders a value read from a file as a flag would take it: a
// list (webhook-allow-cidrs) is joined with commas.
func settingString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fmt.Sprint(e)
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

// validate checks what parsing cannot: values that must make sense
// together. serve and --check-config both run it.
func (s *serveSettings) validate() error {
	c := &s.cfg
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("--addr %q is not host:port", c.Addr)
	}
	if c.InternalAddr != "" {
		if _, _, err := net.SplitHostPort(c.InternalAddr); err != nil {
			return fmt.Errorf("--internal-addr %q is not host:port", c.InternalAddr)
		}
	}
	if c.DatabaseURL != "" {
		u, err := url.Parse(c.DatabaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return errors.New("--database-url must be a postgres:// URL")
		}
	} else if c.DataDir == "" {
		return errors.New("--data-dir is empty; the embedded store needs a directory")
	}
	if c.DataDir == "" {
		return errors.New("--data-dir is empty; the ingest log needs a directory")
	}
	for _, cidr := range c.WebhookAllowCIDRs {
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			return fmt.Errorf("--webhook-allow-cidrs: %q is not a CIDR", cidr)
		}
	}
	if _, err := engine.ParseTrustedProxies(c.TrustedProxies); err != nil {
		return err
	}
	for _, o := range c.WSAllowedOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" {
			return fmt.Errorf("--ws-allowed-origins: %q is not an origin like https://host[:port]", o)
		}
	}
	if l := c.Limits; l.MaxConns <= 0 || l.MaxConnsPerIP <= 0 || l.IdleTimeout <= 0 || l.MaxHeaderBytes < 1024 || l.MaxPending <= 0 {
		return errors.New("--max-conns, --max-conns-per-ip, --idle-timeout and --max-pending-sockets must be above 0, --max-header-bytes at least 1024")
	}
	if c.IngestFsync != "always" && c.IngestFsync != "off" {
		return fmt.Errorf("--ingest-fsync must be always or off, not %q", c.IngestFsync)
	}
	if c.IngestBacklogBytes < 1<<20 {
		return fmt.Errorf("--ingest-backlog-bytes must be at least 1 MiB (1048576), not %d", c.IngestBacklogBytes)
	}
	if c.WSSend != "write" && c.WSSend != "io_uring" {
		return fmt.Errorf("--ws-send must be write or io_uring, not %q", c.WSSend)
	}
	if c.Retention < 0 {
		return fmt.Errorf("--retention must be 0 (keep forever) or positive, not %v", c.Retention)
	}
	if c.Demo && c.DemoRate <= 0 {
		return fmt.Errorf("--demo-rate must be above 0, not %v", c.DemoRate)
	}
	return c.CheckCluster()
}

// oneLine keeps the first line of a parser's error.
func oneLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// boolValue is a bool flag that also takes yes/no and on/off, as the
// environment variables always have; empty is false.
type boolValue bool

func (b *boolValue) String() string   { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) IsBoolFlag() bool { return true }
func (b *boolValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "t", "true", "yes", "on":
		*b = true
	case "", "0", "f", "false", "no", "off":
		*b = false
	default:
		return fmt.Errorf("%q is not a boolean", s)
	}
	return nil
}

// levelValue is --log-level: one of the four slog level names.
type levelValue slog.Level

func (l *levelValue) String() string { return strings.ToLower(slog.Level(*l).String()) }
func (l *levelValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		*l = levelValue(slog.LevelDebug)
	case "info":
		*l = levelValue(slog.LevelInfo)
	case "warn", "warning":
		*l = levelValue(slog.LevelWarn)
	case "error":
		*l = levelValue(slog.LevelError)
	default:
		return fmt.Errorf("%q is not debug, info, warn or error", s)
	}
	return nil
}

// envOr is the value of an environment variable, or def when unset.
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}
