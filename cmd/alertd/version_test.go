package main

// Subprocess tests of what only a process shows: the version a release build
// stamps, and the exit status and one-line output of `serve --check-config`
// and `healthcheck`.

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
)

// stampedBinary builds alertd stamped with version and commit as `make
// release` does (without -trimpath and CGO_ENABLED=0, which would miss the
// build cache the other builds of the test run fill).
func stampedBinary(t *testing.T, version, commit string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "alertd")
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+version+" -X main.commit="+commit, "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// run runs bin with args in an environment free of the caller's alertd
// settings, plus env.
func run(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ALERTD_") && !strings.HasPrefix(kv, "DATABASE_URL=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("alertd %v: still running after 30 s", args)
	}
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

// oneLine fails t unless s is exactly one line holding every want.
func wantOneLine(t *testing.T, what, s string, want ...string) {
	t.Helper()
	s = strings.TrimSuffix(s, "\n")
	if s == "" || strings.Contains(s, "\n") {
		t.Errorf("%s is not one line: %q", what, s)
	}
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s %q does not contain %q", what, s, w)
		}
	}
}

func TestProcessVersionCheckConfigHealthcheck(t *testing.T) {
	bin := stampedBinary(t, "v9.8.7-test", "0123abcd")

	t.Run("version", func(t *testing.T) {
		out, errOut, code := run(t, bin, nil, "version")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		wantOneLine(t, "version", out, "v9.8.7-test", "0123abcd", runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	})

	dir := t.TempDir()
	good := filepath.Join(dir, "alertd.yaml")
	if err := os.WriteFile(good, []byte("addr: 127.0.0.1:18080\ndata-dir: "+dir+"\nlog-level: warn\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(dir, "typo.toml")
	if err := os.WriteFile(typo, []byte("adress = \"127.0.0.1:1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		env     []string
		args    []string
		ok      bool
		mention []string
	}{
		{"defaults", nil, nil, true, []string{"OK"}},
		{"file by flag", nil, []string{"--config", good}, true, []string{"OK", good}},
		{"file by environment", []string{"ALERTD_CONFIG=" + good}, nil, true, []string{"OK", good}},
		{"unknown setting in the file", nil, []string{"--config", typo}, false, []string{typo, "adress"}},
		{"bad environment value", []string{"ALERTD_LOG_LEVEL=loud"}, nil, false, []string{"ALERTD_LOG_LEVEL", "loud"}},
		{"bad CIDR", nil, []string{"--webhook-allow-cidrs", "10.0.0.0/33"}, false, []string{"10.0.0.0/33"}},
		{"not a postgres URL", nil, []string{"--database-url", "mysql://db/x"}, false, []string{"postgres"}},
	} {
		t.Run("check-config/"+c.name, func(t *testing.T) {
			out, errOut, code := run(t, bin, c.env, append([]string{"serve", "--check-config"}, c.args...)...)
			if c.ok {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				wantOneLine(t, "stdout", out, c.mention...)
				return
			}
			if code == 0 {
				t.Fatalf("exit 0 for a bad configuration; stdout %q", out)
			}
			wantOneLine(t, "stderr", errOut, c.mention...)
		})
	}

	t.Run("healthcheck", func(t *testing.T) {
		cfg := engine.DefaultConfig()
		cfg.Addr, cfg.DataDir, cfg.AdminToken = "127.0.0.1:0", t.TempDir(), "adm_healthcheck"
		e, err := engine.Start(context.Background(), &cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { defer close(done); _ = e.Serve() }()
		addr := e.Addr().String()
		out, errOut, code := run(t, bin, nil, "healthcheck", "--addr", addr)
		if code != 0 {
			t.Errorf("healthy server: exit %d: %s", code, errOut)
		}
		wantOneLine(t, "stdout", out, `"status":"ok"`)
		// The address alertd serve would listen on, from the environment.
		if _, errOut, code := run(t, bin, []string{"ALERTD_ADDR=" + addr}, "healthcheck"); code != 0 {
			t.Errorf("ALERTD_ADDR: exit %d: %s", code, errOut)
		}
		e.Close()
		<-done
		_, errOut, code = run(t, bin, nil, "healthcheck", "--addr", addr, "--timeout", "2s")
		if code == 0 {
			t.Errorf("stopped server: exit 0")
		}
		wantOneLine(t, "stderr", errOut, addr)
	})
}
