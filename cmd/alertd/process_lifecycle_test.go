package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/gorilla/websocket"
)

// TestProcessStartFailure: a process that cannot open its store, or is given
// a bad flag, exits non-zero with a one-line reason on stderr (CONTRACT.md
// section 1), from flags and from their environment variables.
func TestProcessStartFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no subprocess tests")
	}
	bin := alertdBinary(t)
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		args    []string
		env     []string
		mention string
	}{
		{"unreachable postgres", []string{"--database-url", "postgres://127.0.0.1:1/x"}, nil, "127.0.0.1:1"},
		{"unreachable postgres from DATABASE_URL", nil, []string{"DATABASE_URL=postgres://127.0.0.1:1/x"}, "127.0.0.1:1"},
		{"not a postgres url", []string{"--database-url", "mysql://u@127.0.0.1/x"}, nil, "postgres"},
		{"data dir is a file", []string{"--data-dir", notADir}, nil, ""},
		{"data dir from ALERTD_DATA_DIR is a file", nil, []string{"ALERTD_DATA_DIR=" + notADir}, ""},
		{"a bad CIDR", []string{"--webhook-allow-cidrs", "10.0.0.0/99"}, nil, "CIDR"},
		{"a cluster with the embedded store", []string{"--cluster-name", "c1"}, nil, "PostgreSQL"},
		{"a cluster from ALERTD_CLUSTER_PEERS with the embedded store", nil, []string{"ALERTD_CLUSTER_PEERS=127.0.0.1:7946"}, "PostgreSQL"},
		{"an unknown cluster provider", []string{"--cluster-name", "c1", "--cluster-provider", "zookeeper", "--database-url", "postgres://127.0.0.1:1/x"}, nil, "automanaged, etcd, consul, kubernetes"},
		{"etcd without its endpoints", []string{"--cluster-name", "c1", "--cluster-provider", "etcd", "--database-url", "postgres://127.0.0.1:1/x"}, nil, "--cluster-peers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"serve", "--addr", "127.0.0.1:0", "--admin-token", "adm_x"}
			if !strings.Contains(strings.Join(c.env, " "), "ALERTD_DATA_DIR") && !contains(c.args, "--data-dir") {
				args = append(args, "--data-dir", t.TempDir())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append(args, c.args...)...)
			cmd.Env = childEnv(c.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.SysProcAttr = childSysProcAttr()
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still running after 40 s; stderr:\n%s", testkit.Tail(stderr.String(), 3000))
			}
			if err == nil || cmd.ProcessState.ExitCode() <= 0 {
				t.Fatalf("exit status %v, want a non-zero exit", cmd.ProcessState)
			}
			out := strings.TrimRight(stderr.String(), "\n")
			if out == "" || strings.Contains(out, "\n") {
				t.Fatalf("stderr is not one line:\n%s", out)
			}
			if strings.HasPrefix(out, "{") || strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
				t.Errorf("stderr is not a plain one-line reason: %s", out)
			}
			if c.mention != "" && !strings.Contains(out, c.mention) {
				t.Errorf("reason %q does not mention %q", out, c.mention)
			}
		})
	}
}

// TestProcessLifecycle: a server given no admin token makes one in
// <data-dir>/admin-token (mode 0600) and logs it once; `alertd admin`
// issues, changes and revokes keys against it, reading that file; SIGTERM
// closes open WebSockets with 1001 and exits 0; a restart reuses the token
// without logging it again, and what the CLI did is still there.
func TestProcessLifecycle(t *testing.T) {
	testkit.ForEachStore(t, func(t *testing.T, st testkit.Store) {
		dir := t.TempDir()
		args := []string{"--data-dir", dir}
		var env []string
		if u := st.DatabaseURL(t); u != "" {
			env = append(env, "DATABASE_URL="+u) // the environment form of --database-url
		}
		tokenPath := filepath.Join(dir, "admin-token")

		p := startProc(t, args, env...)
		fi, err := os.Stat(tokenPath)
		if err != nil {
			t.Fatalf("no admin token file: %v", err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %v, want 0600", tokenPath, perm)
		}
		raw, err := os.ReadFile(tokenPath)
		if err != nil {
			t.Fatal(err)
		}
		token := strings.TrimSpace(string(raw))
		if len(token) < 16 {
			t.Fatalf("generated admin token %q is too short", token)
		}
		if n := strings.Count(p.stderr.String(), token); n != 1 {
			t.Errorf("the generated admin token is logged %d times, want once", n)
		}
		p.admin = token

		// The admin CLI, with the token read from the data dir.
		cli := func(args ...string) map[string]any {
			t.Helper()
			out, err := adminCLI(t, append([]string{"--server", p.base, "--data-dir", dir}, args...)...)
			if err != nil {
				t.Fatalf("alertd admin %v: %v\n%s", args, err, out)
			}
			var d map[string]any
			if err := json.Unmarshal(out, &d); err != nil {
				t.Fatalf("alertd admin %v printed %q, want the answer's data as JSON", args, out)
			}
			return d
		}
		dt := cli("issue", "--product", "dt", "--plan", "pro", "--late-delivery=true")
		key, account := dt["key"].(string), dt["account_id"].(string)
		if !strings.HasPrefix(key, "dt_") || account == "" || dt["plan"] != "pro" {
			t.Fatalf("issue printed %v", dt)
		}
		if d := cli("change", "--account", account, "--product", "dt", "--max-handles", "300"); d["max_handles"] != 300.0 {
			t.Errorf("change printed %v, want max_handles 300", d)
		}
		cw := cli("issue", "--product", "cw", "--account", account)
		if cw["account_id"] != account {
			t.Errorf("issue --account printed %v", cw)
		}
		gone := cli("issue", "--product", "sa")["key"].(string)
		cli("revoke", gone)
		if out, err := adminCLI(t, "--server", p.base, "--admin-token", "adm_wrong", "revoke", key); err == nil || !strings.Contains(string(out), "401") {
			t.Errorf("a wrong token: %v %s, want a failure naming HTTP 401", err, out)
		}
		if st, _ := p.call(t, "GET", "/v1/sa/status", gone, nil); st != 401 {
			t.Errorf("revoked key: HTTP %d, want 401", st)
		}

		// SIGTERM closes a socket with 1001 after what was queued, and the
		// process exits 0 (asserted by stop).
		w, r, err := testkit.DialWS(t, "ws"+strings.TrimPrefix(p.base, "http")+"/v1/cw/ws?api_key="+cw["key"].(string), testkit.DialOptions{})
		if err != nil {
			t.Fatalf("dial cw socket: %v (%s)", err, testkit.ResponseText(r))
		}
		if got := w.Barrier(t); len(got) != 0 {
			t.Errorf("cw socket: frames before any event: %q", got)
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code, _, _ := w.WaitEnd(t, stopDeadline); code != websocket.CloseGoingAway {
			t.Errorf("socket closed with %d on SIGTERM, want 1001", code)
		}
		p.stop(t)

		p = startProc(t, args, env...)
		if got, _ := os.ReadFile(tokenPath); strings.TrimSpace(string(got)) != token {
			t.Errorf("the admin token file changed across a restart")
		}
		if strings.Contains(p.stderr.String(), token) {
			t.Errorf("the admin token was logged again on a restart; it should be logged once, when generated")
		}
		p.admin = token
		d := p.data(t, "GET", "/v1/dt/status", key, nil, 200)
		if d["max_handles"] != 300.0 || !contains(toStrings(d["modules"]), "late_delivery") {
			t.Errorf("dt status after the restart: %v", d)
		}
		if st, _ := p.call(t, "GET", "/v1/sa/status", gone, nil); st != 401 {
			t.Errorf("revoked key after the restart: HTTP %d, want 401", st)
		}
	})
}

// adminCLI runs `alertd admin args...` and returns its stdout (stderr on
// failure).
func adminCLI(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, alertdBinary(t), append([]string{"admin"}, args...)...)
	cmd.Env = childEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stderr.Bytes(), err
	}
	return stdout.Bytes(), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
