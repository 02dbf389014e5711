package main

// Subprocess harness: the real alertd binary, built once per test run (with
// -race when the tests have it), for what only a process shows: flags and
// environment, signals, exit codes, the admin-token file, the admin CLI.
// Everything else is tested in process, in e2e/.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

// TestMain removes the built binary and checks that no goroutine (a
// child's waiter, a receiver) outlives the tests.
func TestMain(m *testing.M) {
	testkit.VerifyTestMain(m, func() {
		if buildDir != "" {
			os.RemoveAll(buildDir)
		}
	})
}

// alertdBinary builds the binary under test once per test process.
func alertdBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "alertd-process-")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "alertd")
		args := []string{"build"}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, "-o", buildBin, ".")
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("go tool not found: %w", err)
			return
		}
		if out, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building alertd: %v", buildErr)
	}
	return buildBin
}

// childEnv is the test's environment without alertd's settings, so that
// only what a test passes counts.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "ALERTD_") || name == "DATABASE_URL" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// proc is one running `alertd serve`.
type proc struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port
	admin   string // admin token ("" until the test knows it)
	stderr  *testkit.LogBuffer
	exited  chan struct{}
	stopped bool
}

const (
	startDeadline = 60 * time.Second // a -race binary migrating PostgreSQL on a busy 2-core box
	stopDeadline  = 15 * time.Second
)

// startProc runs `alertd serve` with args (--addr is added) and env, and
// waits for /health to answer 200. Its cleanup stops it with SIGTERM and
// asserts a clean exit.
func startProc(t *testing.T, args []string, env ...string) *proc {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p, err := tryStart(t, args, env)
		if err == nil {
			t.Cleanup(func() { p.stop(t) })
			return p
		}
		if attempt < 4 && strings.Contains(err.Error(), "address already in use") {
			t.Logf("port taken, retrying: %v", err)
			continue
		}
		t.Fatalf("alertd did not become healthy: %v", err)
	}
}

// startTracking starts alertd on st (webhooks to loopback allowed), issues
// a Tweet Alerts pro key and has it track a fresh handle named after
// prefix; the args start the process again on the same data.
func startTracking(t *testing.T, st testkit.Store, prefix string) (p *proc, args []string, key, handle string) {
	t.Helper()
	token := "adm_e2e_" + testkit.RandomHex(16)
	args = []string{"--data-dir", t.TempDir(), "--admin-token", token, "--webhook-allow-cidrs", "127.0.0.0/8"}
	if u := st.DatabaseURL(t); u != "" {
		args = append(args, "--database-url", u)
	}
	p = startProc(t, args)
	p.admin = token
	key = p.data(t, "POST", "/admin/v1/keys", p.admin, map[string]any{"product": "xg", "plan": "pro"}, 201)["key"].(string)
	handle = prefix + "_" + testkit.RandomHex(4)
	p.ingest(t, map[string]any{"kind": "user", "id": fmt.Sprint(time.Now().UnixNano()), "handle": handle, "name": prefix,
		"bio": "", "avatar": "https://pbs.example.com/" + prefix + ".jpg", "followers": 1, "following": 1, "verified": false,
		"pinned_post": []string{}, "categories": []string{}, "suspended": false})
	testkit.WaitFor(t, 15*time.Second, "@"+handle+" trackable", func() (bool, string) {
		code, env := p.call(t, "POST", "/v1/accounts", key, map[string]any{"handles": []string{handle}})
		d, _ := env["data"].(map[string]any)
		return code == 201 && len(toStrings(d["added"]))+len(toStrings(d["already_exists"])) == 1, fmt.Sprint(code, env)
	})
	return p, args, key, handle
}

func tryStart(t *testing.T, args, env []string) (*proc, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	p := &proc{base: "http://" + addr, stderr: &testkit.LogBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(alertdBinary(t), append([]string{"serve", "--addr", addr}, args...)...)
	p.cmd.Env = childEnv(env...)
	p.cmd.Stdout, p.cmd.Stderr = io.Discard, p.stderr
	p.cmd.SysProcAttr = childSysProcAttr()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()

	deadline := time.Now().Add(startDeadline)
	for {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("exited early (%v); stderr:\n%s", p.cmd.ProcessState, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			p.kill()
			return nil, fmt.Errorf("no 200 from /health within %v; stderr:\n%s", startDeadline, testkit.Tail(p.stderr.String(), 4000))
		}
		if r, err := httpClient.Get(p.base + "/health"); err == nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode == 200 {
				return p, nil
			}
		}
		time.Sleep(25 * time.Millisecond) // paces the wait for a process to come up
	}
}

// kill ends the process with SIGKILL: no shutdown at all.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
	p.stopped = true
}

// stop sends SIGTERM and asserts the process exits 0 within 15 s, with no
// data race, no panic and only structured (JSON) log lines on stderr.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if p.stopped {
		return
	}
	p.stopped = true
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM: %v", err)
	}
	select {
	case <-p.exited:
	case <-time.After(stopDeadline):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("alertd did not exit within %v of SIGTERM; stderr tail:\n%s", stopDeadline, testkit.Tail(p.stderr.String(), 4000))
		return
	}
	stderr := p.stderr.String()
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("alertd exited %d after SIGTERM, want 0 (66: the race detector found a race); stderr tail:\n%s", code, testkit.Tail(stderr, 6000))
	}
	switch {
	case strings.Contains(stderr, "WARNING: DATA RACE"):
		t.Errorf("the race detector reported a data race in alertd:\n%s", testkit.Tail(stderr, 6000))
	case strings.Contains(stderr, "panic: ") || strings.Contains(stderr, "\ngoroutine "):
		t.Errorf("alertd panicked or dumped goroutines:\n%s", testkit.Tail(stderr, 6000))
	default:
		checkLogLines(t, stderr)
	}
}

// checkLogLines asserts CONTRACT.md section 1: logs are one JSON object per
// line on stderr.
func checkLogLines(t *testing.T, stderr string) {
	t.Helper()
	bad := 0
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if line == "" {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(line), &obj) != nil {
			if bad < 5 {
				t.Errorf("stderr line is not a JSON object: %q", testkit.Tail(line, 300))
			}
			bad++
		}
	}
}

var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil, DisableCompression: true}}

// call sends one request (body marshalled unless nil) with key as bearer
// and returns the status and the decoded answer.
func (p *proc) call(t *testing.T, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return r.StatusCode, out
}

// data asserts a success envelope with status and returns its data.
func (p *proc) data(t *testing.T, method, path, key string, body any, status int) map[string]any {
	t.Helper()
	got, env := p.call(t, method, path, key, body)
	d, _ := env["data"].(map[string]any)
	if got != status || env["ok"] != true || d == nil {
		t.Fatalf("%s %s: %d %v, want %d and data", method, path, got, env, status)
	}
	return d
}

// ingest posts observations as NDJSON with the admin token; all must be
// accepted.
func (p *proc) ingest(t *testing.T, obs ...any) {
	t.Helper()
	req, err := http.NewRequest("POST", p.base+"/ingest/v1/observations", strings.NewReader(testkit.NDJSON(t, obs...)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.admin)
	req.Header.Set("Content-Type", "application/x-ndjson")
	r, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var env struct {
		Data struct {
			Accepted int `json:"accepted"`
		} `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil || r.StatusCode != 200 || env.Data.Accepted != len(obs) {
		t.Fatalf("ingest: HTTP %d, accepted %d of %d (%v)", r.StatusCode, env.Data.Accepted, len(obs), err)
	}
}
