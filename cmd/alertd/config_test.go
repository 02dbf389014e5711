package main

import (
	"errors"
	"flag"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

// files is a fake file system for parseServeFlags.
type files map[string]string

func (f files) read(path string) ([]byte, error) {
	if s, ok := f[path]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
}

func envOf(m map[string]string) environ {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

const yamlFile = `
addr: 10.0.0.1:9000
database-url: postgres://alertd@db/alertd
data-dir: /var/lib/alertd
demo: true
demo-rate: 10
webhook-allow-cidrs: [10.0.0.0/8, 127.0.0.0/8]
telegram-bot-token: "123:abc"
log-level: debug
`

const tomlFile = `
addr = "10.0.0.2:9000"
demo-rate = 12.5
webhook-allow-cidrs = "192.168.0.0/16"
log-level = "warn"
`

// TestServeSettingsPrecedence: flag, then environment, then file, then default.
func TestServeSettingsPrecedence(t *testing.T) {
	fsys := files{"/etc/alertd.yaml": yamlFile, "/etc/alertd.toml": tomlFile, "/etc/other.yml": "addr: 10.9.9.9:1\n"}
	def := defaultServeSettings()
	type want struct {
		addr, dbURL, dataDir, token string
		demo                        bool
		rate                        float64
		cidrs                       []string
		level                       slog.Level
	}
	base := want{addr: def.cfg.Addr, dataDir: def.cfg.DataDir, rate: def.cfg.DemoRate, level: slog.LevelInfo}
	with := func(f func(*want)) want { w := base; f(&w); return w }
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want want
	}{
		{"defaults", nil, nil, base},
		{"yaml file by flag", []string{"--config", "/etc/alertd.yaml"}, nil, want{addr: "10.0.0.1:9000",
			dbURL: "postgres://alertd@db/alertd", dataDir: "/var/lib/alertd", token: "", demo: true, rate: 10,
			cidrs: []string{"10.0.0.0/8", "127.0.0.0/8"}, level: slog.LevelDebug}},
		{"toml file by environment", nil, map[string]string{"ALERTD_CONFIG": "/etc/alertd.toml"}, with(func(w *want) {
			w.addr, w.rate, w.cidrs, w.level = "10.0.0.2:9000", 12.5, []string{"192.168.0.0/16"}, slog.LevelWarn
		})},
		{"--config beats ALERTD_CONFIG", []string{"-config", "/etc/other.yml"}, map[string]string{"ALERTD_CONFIG": "/etc/alertd.yaml"},
			with(func(w *want) { w.addr = "10.9.9.9:1" })},
		{"environment beats file", []string{"--config", "/etc/alertd.yaml"}, map[string]string{"ALERTD_ADDR": "10.1.1.1:80",
			"DATABASE_URL": "postgres://env/db", "ALERTD_DEMO": "off", "ALERTD_LOG_LEVEL": "ERROR", "ALERTD_WEBHOOK_ALLOW_CIDRS": "172.16.0.0/12"},
			want{addr: "10.1.1.1:80", dbURL: "postgres://env/db", dataDir: "/var/lib/alertd", rate: 10,
				cidrs: []string{"172.16.0.0/12"}, level: slog.LevelError}},
		{"flag beats environment and file", []string{"--config=/etc/alertd.yaml", "--addr", "10.2.2.2:81", "--demo=false",
			"--log-level", "info", "--admin-token", "adm_flag"},
			map[string]string{"ALERTD_ADDR": "10.1.1.1:80", "ALERTD_DEMO": "1", "ALERTD_LOG_LEVEL": "error", "ALERTD_ADMIN_TOKEN": "adm_env"},
			want{addr: "10.2.2.2:81", dbURL: "postgres://alertd@db/alertd", dataDir: "/var/lib/alertd", token: "adm_flag",
				rate: 10, cidrs: []string{"10.0.0.0/8", "127.0.0.0/8"}, level: slog.LevelInfo}},
		{"empty environment counts as unset", []string{"--config", "/etc/other.yml"}, map[string]string{"ALERTD_ADDR": "", "ALERTD_DEMO": ""},
			with(func(w *want) { w.addr = "10.9.9.9:1" })},
		{"yes and on are true, as they always were", nil, map[string]string{"ALERTD_DEMO": "yes"}, with(func(w *want) { w.demo = true })},
		{"a bare bool flag", []string{"--demo"}, map[string]string{"ALERTD_DEMO": "no"}, with(func(w *want) { w.demo = true })},
		{"comma-separated CIDRs", []string{"--webhook-allow-cidrs", " 10.0.0.0/8 , 127.0.0.0/8,"}, nil,
			with(func(w *want) { w.cidrs = []string{"10.0.0.0/8", "127.0.0.0/8"} })},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := parseServeFlags(c.args, envOf(c.env), fsys.read)
			if err != nil {
				t.Fatal(err)
			}
			got := want{addr: s.cfg.Addr, dbURL: s.cfg.DatabaseURL, dataDir: s.cfg.DataDir, token: s.cfg.AdminToken,
				demo: s.cfg.Demo, rate: s.cfg.DemoRate, cidrs: s.cfg.WebhookAllowCIDRs, level: s.logLevel}
			if got.addr != c.want.addr || got.dbURL != c.want.dbURL || got.dataDir != c.want.dataDir || got.token != c.want.token ||
				got.demo != c.want.demo || got.rate != c.want.rate || !slices.Equal(got.cidrs, c.want.cidrs) || got.level != c.want.level {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestServeSettingsRefused: each bad setting is refused with a reason that
// names where it came from.
func TestServeSettingsRefused(t *testing.T) {
	fsys := files{
		"/c/typo.yaml":   "adress: 127.0.0.1:1\n",
		"/c/nested.yaml": "addr:\n  host: x\n",
		"/c/check.yaml":  "check-config: true\n",
		"/c/self.yaml":   "config: /c/other.yaml\n",
		"/c/level.yaml":  "log-level: loud\n",
		"/c/broken.toml": "addr = \n",
		"/c/conf.ini":    "addr=1\n",
	}
	for _, c := range []struct {
		name    string
		args    []string
		env     map[string]string
		mention []string
	}{
		{"unknown setting", []string{"--config", "/c/typo.yaml"}, nil, []string{"/c/typo.yaml", `"adress"`}},
		{"nested setting", []string{"--config", "/c/nested.yaml"}, nil, []string{`"addr.host"`}},
		{"check-config in a file", []string{"--config", "/c/check.yaml"}, nil, []string{`"check-config"`}},
		{"config in a file", []string{"--config", "/c/self.yaml"}, nil, []string{`"config"`}},
		{"bad value in the file", []string{"--config", "/c/level.yaml"}, nil, []string{"/c/level.yaml", "log-level", "loud"}},
		{"unparsable file", []string{"--config", "/c/broken.toml"}, nil, []string{"/c/broken.toml"}},
		{"unknown format", []string{"--config", "/c/conf.ini"}, nil, []string{".yaml", ".toml"}},
		{"missing file", nil, map[string]string{"ALERTD_CONFIG": "/c/none.yaml"}, []string{"/c/none.yaml"}},
		{"bad value in the environment", nil, map[string]string{"ALERTD_DEMO": "maybe"}, []string{"ALERTD_DEMO", "maybe"}},
		{"bad flag value", []string{"--demo-rate", "fast"}, nil, []string{"demo-rate"}},
		{"unknown flag", []string{"--colour", "blue"}, nil, []string{"colour"}},
		{"stray argument", []string{"now"}, nil, []string{`"now"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseServeFlags(c.args, envOf(c.env), fsys.read)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, m := range c.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("reason %q does not mention %s", err, m)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("reason is not one line: %q", err)
			}
		})
	}
}

// TestServeSettingsValidate: values that parse but cannot serve.
func TestServeSettingsValidate(t *testing.T) {
	for _, c := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--addr", "localhost"}, "--addr"},
		{[]string{"--database-url", "mysql://u@h/db"}, "postgres"},
		{[]string{"--webhook-allow-cidrs", "10.0.0.0/8,nonsense"}, "nonsense"},
		{[]string{"--demo", "--demo-rate", "0"}, "--demo-rate"},
		{[]string{"--data-dir", ""}, "--data-dir"},
	} {
		s, err := parseServeFlags(c.args, envOf(nil), files{}.read)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if err := s.validate(); err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%v: validate() = %v, want a reason naming %s", c.args, err, c.mention)
		}
	}
	s, err := parseServeFlags([]string{"--database-url", "postgres:///alertd?host=/run/postgresql"}, envOf(nil), files{}.read)
	if err != nil || s.validate() != nil {
		t.Errorf("a unix-socket postgres URL is refused: %v", err)
	}
}

// TestServeFlagTable: every flag has a usage, names are unique, environment
// variables follow CONTRACT.md, and --help lists them all.
func TestServeFlagTable(t *testing.T) {
	seen := map[string]bool{}
	usage := serveUsage()
	for _, f := range serveFlags {
		if seen[f.Name] || f.Usage == "" || f.bind == nil {
			t.Errorf("flag %q: duplicate or incomplete", f.Name)
		}
		seen[f.Name] = true
		if f.Env != "" && f.Env != "DATABASE_URL" && !strings.HasPrefix(f.Env, "ALERTD_") {
			t.Errorf("flag %q: environment variable %q", f.Name, f.Env)
		}
		if !strings.Contains(usage, "-"+f.Name) {
			t.Errorf("--help does not list --%s", f.Name)
		}
	}
	for _, name := range []string{"config", "addr", "database-url", "data-dir", "admin-token", "demo", "webhook-allow-cidrs", "log-level", "check-config"} {
		if !seen[name] {
			t.Errorf("--%s is missing", name)
		}
	}
	if _, err := parseServeFlags([]string{"--help"}, envOf(nil), files{}.read); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
}
