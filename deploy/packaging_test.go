// Package deploy holds the systemd unit and the checks of the packaging
// files (Dockerfile, compose.yaml, deploy/*). Docker is not runnable where
// the tests run, so these read the files the way the tools would and hold
// them to the rules they were written by.
package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCompose: compose.yaml is YAML, runs alertd on PostgreSQL 15 with
// health checks, and keeps both stores' data on named volumes.
func TestCompose(t *testing.T) {
	var c struct {
		Services map[string]struct {
			Image       string         `yaml:"image"`
			Build       any            `yaml:"build"`
			Environment map[string]any `yaml:"environment"`
			DependsOn   map[string]struct {
				Condition string `yaml:"condition"`
			} `yaml:"depends_on"`
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
			Volumes []string `yaml:"volumes"`
		} `yaml:"services"`
		Volumes map[string]any `yaml:"volumes"`
	}
	src := read(t, "../compose.yaml")
	if err := yaml.Unmarshal([]byte(src), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	// A misspelt key is ignored by compose: hold the keys to the spec's.
	var raw struct {
		Services map[string]map[string]any `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(src), &raw); err != nil {
		t.Fatal(err)
	}
	for name, svc := range raw.Services {
		for k := range svc {
			if !composeServiceKeys[k] {
				t.Errorf("service %s: %q is not a compose service key", name, k)
			}
		}
	}
	pg, alertd := c.Services["postgres"], c.Services["alertd"]
	if !strings.HasPrefix(pg.Image, "postgres:15") {
		t.Errorf("postgres image %q, want postgres:15", pg.Image)
	}
	if alertd.Build == nil {
		t.Errorf("alertd is not built from the Dockerfile")
	}
	if alertd.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("alertd does not wait for a healthy postgres")
	}
	if u, _ := alertd.Environment["DATABASE_URL"].(string); !strings.HasPrefix(u, "postgres://") || !strings.Contains(u, "@postgres:5432/") {
		t.Errorf("DATABASE_URL %q does not point at the postgres service", u)
	}
	if len(pg.Healthcheck.Test) == 0 || !strings.Contains(strings.Join(pg.Healthcheck.Test, " "), "pg_isready") {
		t.Errorf("postgres health check %v", pg.Healthcheck.Test)
	}
	if !slices.Equal(alertd.Healthcheck.Test, []string{"CMD", "/usr/local/bin/alertd", "healthcheck"}) {
		t.Errorf("alertd health check %v", alertd.Healthcheck.Test)
	}
	for name, want := range map[string]string{"postgres": "/var/lib/postgresql/data", "alertd": "/data"} {
		found := false
		for _, v := range c.Services[name].Volumes {
			vol, target, _ := strings.Cut(v, ":")
			if _, named := c.Volumes[vol]; named && strings.HasPrefix(target, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s keeps %s on no named volume: %v", name, want, c.Services[name].Volumes)
		}
	}
}

// composeServiceKeys are the service keys of the Compose specification this
// project may use.
var composeServiceKeys = map[string]bool{"image": true, "build": true, "command": true, "entrypoint": true,
	"environment": true, "env_file": true, "depends_on": true, "healthcheck": true, "volumes": true, "ports": true,
	"ulimits": true, "stop_grace_period": true, "stop_signal": true, "restart": true, "user": true, "networks": true,
	"read_only": true, "tmpfs": true, "security_opt": true, "cap_drop": true, "logging": true, "deploy": true, "labels": true}

// TestDockerfile holds the Dockerfile to what hadolint and the brief ask:
// multi-stage, pinned base images, a static binary, a non-root user, a
// health check, a data volume, exec-form commands.
func TestDockerfile(t *testing.T) {
	src := read(t, "../Dockerfile")
	var froms, instr []string
	var user string
	sc := bufio.NewScanner(strings.NewReader(strings.ReplaceAll(src, "\\\n", " ")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		word = strings.ToUpper(word)
		instr = append(instr, word+" "+rest)
		switch word {
		case "FROM":
			froms = append(froms, rest)
			user = ""
		case "USER":
			user = rest
		case "ADD":
			t.Errorf("ADD %s: use COPY (hadolint DL3020)", rest)
		}
	}
	if len(froms) < 2 {
		t.Errorf("%d stages, want a multi-stage build", len(froms))
	}
	for _, f := range froms {
		image, _, _ := strings.Cut(f, " ")
		if !strings.Contains(image, ":") || strings.HasSuffix(image, ":latest") {
			t.Errorf("FROM %s: pin the image's tag (hadolint DL3006/DL3007)", image)
		}
	}
	if user == "" || user == "root" || strings.HasPrefix(user, "0") {
		t.Errorf("the final stage runs as %q, want a non-root user", user)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`^RUN .*CGO_ENABLED=0 go build `),
		regexp.MustCompile(`^HEALTHCHECK .*CMD \["/usr/local/bin/alertd", "healthcheck"\]`),
		regexp.MustCompile(`^VOLUME \["/data"\]`),
		regexp.MustCompile(`^ENTRYPOINT \[`),
		regexp.MustCompile(`^CMD \["serve"\]`),
	} {
		if !slices.ContainsFunc(instr, want.MatchString) {
			t.Errorf("no instruction matches %s", want)
		}
	}
	if !strings.Contains(read(t, "../.dockerignore"), ".git") {
		t.Errorf(".dockerignore does not keep .git out of the build context")
	}
}

// TestSystemdUnit: a dedicated user, the hardening options, a writable data
// dir and a restart policy; and `systemd-analyze verify` accepts it where
// systemd is installed.
func TestSystemdUnit(t *testing.T) {
	unit := read(t, "alertd.service")
	keys := map[string][]string{}
	for _, line := range strings.Split(unit, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = append(keys[k], v)
		}
	}
	for k, want := range map[string]string{"User": "alertd", "NoNewPrivileges": "yes", "ProtectSystem": "strict",
		"ReadWritePaths": "/var/lib/alertd", "StateDirectory": "alertd", "Environment": "ALERTD_DATA_DIR=/var/lib/alertd",
		"Restart": "on-failure", "ExecStart": "/usr/local/bin/alertd serve", "CapabilityBoundingSet": "",
		"ExecStartPre": "/usr/local/bin/alertd serve --check-config"} {
		if !slices.Contains(keys[k], want) {
			t.Errorf("%s=%s missing (have %q)", k, want, keys[k])
		}
	}
	if !strings.Contains(read(t, "alertd.sysusers"), "u alertd ") {
		t.Errorf("alertd.sysusers does not make the alertd user")
	}
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze not installed: verify skipped")
		return
	}
	// verify checks that the commands exist: stand them in with /bin/true.
	copyPath := filepath.Join(t.TempDir(), "alertd.service")
	re := regexp.MustCompile(`(?m)^(ExecStart(Pre)?=).*$`)
	if err := os.WriteFile(copyPath, []byte(re.ReplaceAllString(unit, "${1}/bin/true")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "verify", copyPath).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
