package main

// End-to-end harness: the real alertd binary, built once, started as a
// subprocess on a loopback port and spoken to over real HTTP, as a client
// would (DESIGN.md "Tests, in tiers", tier 4).

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence/pgtest"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// alertdBinary builds the binary under test once per test process, with
// -race when the tests themselves run with -race.
func alertdBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "alertd-e2e-")
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
		cmd := exec.Command(goTool, args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building alertd: %v", buildErr)
	}
	return buildBin
}

// storeMode is one store the whole suite runs against.
type storeMode struct {
	name string
	// dbURL returns the --database-url for a fresh store ("" = embedded).
	dbURL func(t *testing.T) string
}

var storeModes = []storeMode{
	{"embedded", func(*testing.T) string { return "" }},
	{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
}

// forEachStore runs f once per store mode, the modes in parallel.
func forEachStore(t *testing.T, f func(t *testing.T, m storeMode)) {
	for _, m := range storeModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			f(t, m)
		})
	}
}

// lockedBuffer collects a child's output while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serverOpts are the serve flags a test chooses.
type serverOpts struct {
	dataDir    string // default: a fresh t.TempDir()
	dbURL      string // "" = embedded store
	adminToken string // "" = none passed (the binary generates or reads one)
	noToken    bool   // pass no --admin-token even if adminToken is set
}

// server is one running alertd serve process.
type server struct {
	t       *testing.T
	opts    serverOpts
	base    string // http://127.0.0.1:port
	admin   string // admin bearer token
	cmd     *exec.Cmd
	stdout  *lockedBuffer
	stderr  *lockedBuffer
	exited  chan struct{}
	stopped bool
}

const (
	startDeadline = 60 * time.Second // a -race binary migrating PostgreSQL on a busy 2-core box
	stopDeadline  = 15 * time.Second
)

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// childEnv is the test's environment without the serve settings, so that
// only the flags a test passes count.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "ALERTD_") || name == "DATABASE_URL" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// startServer starts alertd serve and waits for /health to answer 200. It
// registers a cleanup that stops it with SIGTERM and asserts a clean exit.
func startServer(t *testing.T, opts serverOpts) *server {
	t.Helper()
	bin := alertdBinary(t)
	if opts.dataDir == "" {
		opts.dataDir = t.TempDir()
	}
	if opts.adminToken == "" && !opts.noToken {
		opts.adminToken = "adm_e2e_" + randomHex(16)
	}
	for attempt := 1; ; attempt++ {
		s, err := tryStart(t, bin, opts)
		if err == nil {
			t.Cleanup(func() { s.stop(t) })
			return s
		}
		if attempt < 4 && strings.Contains(err.Error(), "address already in use") {
			t.Logf("port taken, retrying: %v", err)
			continue
		}
		t.Fatalf("alertd did not become healthy: %v", err)
	}
}

func tryStart(t *testing.T, bin string, opts serverOpts) (*server, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	args := []string{"serve", "--addr", addr, "--data-dir", opts.dataDir}
	if opts.dbURL != "" {
		args = append(args, "--database-url", opts.dbURL)
	}
	if opts.adminToken != "" && !opts.noToken {
		args = append(args, "--admin-token", opts.adminToken)
	}
	s := &server{t: t, opts: opts, base: "http://" + addr, admin: opts.adminToken,
		stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = childEnv()
	s.cmd.Stdout, s.cmd.Stderr = s.stdout, s.stderr
	s.cmd.SysProcAttr = childSysProcAttr()
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()

	deadline := time.Now().Add(startDeadline)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("exited early (%v); stderr:\n%s", s.cmd.ProcessState, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("no 200 from /health within %v; stderr:\n%s", startDeadline, tail(s.stderr.String(), 4000))
		}
		r, err := httpClient.Get(s.base + "/health")
		if err == nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.stopped = true
}

// stop sends SIGTERM and asserts the process exits 0 within 15 s, with no
// data race, no panic and only structured (JSON) log lines on stderr.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if s.stopped {
		return
	}
	s.stopped = true
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM: %v", err)
	}
	select {
	case <-s.exited:
	case <-time.After(stopDeadline):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Errorf("alertd did not exit within %v of SIGTERM; stderr tail:\n%s", stopDeadline, tail(s.stderr.String(), 4000))
		return
	}
	stderr := s.stderr.String()
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		if strings.Contains(stderr, "WARNING: DATA RACE") {
			t.Errorf("alertd exited %d after SIGTERM, want 0 (66: the race detector found a race)", code)
		} else {
			t.Errorf("alertd exited %d after SIGTERM, want 0; stderr tail:\n%s", code, tail(stderr, 6000))
		}
	}
	switch {
	case strings.Contains(stderr, "WARNING: DATA RACE"):
		t.Errorf("the race detector reported a data race in alertd (the exit status above is its doing):\n%s", raceReport(stderr))
	case strings.Contains(stderr, "panic: ") || strings.Contains(stderr, "\ngoroutine "):
		t.Errorf("alertd panicked or dumped goroutines:\n%s", tail(stderr, 6000))
	default:
		checkLogLines(t, stderr)
	}
}

// raceReport returns the race detector's first report in stderr.
func raceReport(stderr string) string {
	const sep = "=================="
	i := strings.Index(stderr, sep)
	if i < 0 {
		return tail(stderr, 6000)
	}
	rest := stderr[i+len(sep):]
	if j := strings.Index(rest, sep); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
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
				t.Errorf("stderr line is not a JSON object: %q", tail(line, 300))
			}
			bad++
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

var httpClient = &http.Client{
	Timeout: 30 * time.Second,
	Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConnsPerHost: 16,
		DisableCompression:  true,
		IdleConnTimeout:     30 * time.Second,
	},
}

// hdr are request headers, sent with exactly the names given.
type hdr map[string]string

func bearer(key string) hdr { return hdr{"Authorization": "Bearer " + key} }

// resp is a fully read HTTP response.
type resp struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
}

func (r resp) String() string {
	return fmt.Sprintf("%s %s -> %d %s %s", r.method, r.path, r.status, r.header.Get("Content-Type"), tail(string(r.body), 600))
}

// do sends one request; body may be nil, []byte, string or an io.Reader.
func (s *server) do(t *testing.T, method, path string, h hdr, body any) resp {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	case io.Reader:
		rd = b
	default:
		t.Fatalf("bad body type %T", body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = []string{v} // the exact name, not canonicalised
	}
	r, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp{method: method, path: path, status: r.StatusCode, header: r.Header, body: b}
}

// adminDo sends an admin API request with a JSON body (v marshalled, or raw
// when it is a string or []byte).
func (s *server) adminDo(t *testing.T, method, path string, v any) resp {
	t.Helper()
	h := bearer(s.admin)
	var body any
	switch b := v.(type) {
	case nil:
	case string, []byte:
		body = b
		h["Content-Type"] = "application/json"
	default:
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		body = j
		h["Content-Type"] = "application/json"
	}
	return s.do(t, method, path, h, body)
}

// rawRequest writes req byte for byte on a fresh connection and reads the
// answer: for headers net/http would tidy (trailing spaces).
func (s *server) rawRequest(t *testing.T, req string) resp {
	t.Helper()
	addr := strings.TrimPrefix(s.base, "http://")
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	hr, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("raw request %q: %v", tail(req, 200), err)
	}
	defer hr.Body.Close()
	b, err := io.ReadAll(hr.Body)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(req, "\r\n")
	return resp{method: "RAW", path: line, status: hr.StatusCode, header: hr.Header, body: b}
}

// obj is a decoded JSON object, each member kept raw.
type obj map[string]json.RawMessage

func decodeObj(t *testing.T, b []byte, what string) obj {
	t.Helper()
	var o obj
	if err := json.Unmarshal(b, &o); err != nil || o == nil {
		t.Fatalf("%s: not a JSON object: %v: %s", what, err, tail(string(b), 400))
	}
	return o
}

// keys returns the member names, sorted.
func (o obj) keys() []string {
	k := make([]string, 0, len(o))
	for n := range o {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// wantKeys asserts the object has exactly these members.
func (o obj) wantKeys(t *testing.T, what string, names ...string) {
	t.Helper()
	want := slices.Clone(names)
	sort.Strings(want)
	if got := o.keys(); !slices.Equal(got, want) {
		t.Errorf("%s: members %v, want exactly %v", what, got, want)
	}
}

func (o obj) str(t *testing.T, name string) string {
	t.Helper()
	var s string
	raw, ok := o[name]
	if !ok {
		t.Fatalf("member %q missing in %v", name, o.keys())
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("member %q is %s, want a string", name, raw)
	}
	return s
}

func (o obj) num(t *testing.T, name string) float64 {
	t.Helper()
	var n float64
	raw, ok := o[name]
	if !ok {
		t.Fatalf("member %q missing in %v", name, o.keys())
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("member %q is %s, want a number", name, raw)
	}
	return n
}

func (o obj) boolean(t *testing.T, name string) bool {
	t.Helper()
	var b bool
	raw, ok := o[name]
	if !ok {
		t.Fatalf("member %q missing in %v", name, o.keys())
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("member %q is %s, want a boolean", name, raw)
	}
	return b
}

func (o obj) isNull(name string) bool {
	raw, ok := o[name]
	return ok && string(bytes.TrimSpace(raw)) == "null"
}

func (o obj) object(t *testing.T, name string) obj {
	t.Helper()
	raw, ok := o[name]
	if !ok {
		t.Fatalf("member %q missing in %v", name, o.keys())
	}
	return decodeObj(t, raw, name)
}

func (o obj) array(t *testing.T, name string) []json.RawMessage {
	t.Helper()
	var a []json.RawMessage
	raw, ok := o[name]
	if !ok {
		t.Fatalf("member %q missing in %v", name, o.keys())
	}
	if err := json.Unmarshal(raw, &a); err != nil || a == nil {
		t.Fatalf("member %q is %s, want an array", name, raw)
	}
	return a
}

func (o obj) strings(t *testing.T, name string) []string {
	t.Helper()
	var a []string
	raw, ok := o[name]
	if !ok {
		t.Fatalf("member %q missing in %v", name, o.keys())
	}
	if err := json.Unmarshal(raw, &a); err != nil || a == nil {
		t.Fatalf("member %q is %s, want an array of strings", name, raw)
	}
	return a
}

func wantJSONType(t *testing.T, r resp) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want application/json", r, ct)
	}
}

// wantOK asserts a success envelope with the status and returns its data
// (which must be an object).
func (r resp) wantOK(t *testing.T, status int) obj {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d", r, r.status, status)
	}
	wantJSONType(t, r)
	env := decodeObj(t, r.body, r.String())
	env.wantKeys(t, r.String()+" envelope", "ok", "data")
	if !env.boolean(t, "ok") {
		t.Fatalf("%s: ok is not true", r)
	}
	return env.object(t, "data")
}

// wantErr asserts a failure envelope with the status and code.
func (r resp) wantErr(t *testing.T, status int, code string) obj {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d (%s)", r, r.status, status, code)
	}
	wantJSONType(t, r)
	env := decodeObj(t, r.body, r.String())
	for _, k := range env.keys() {
		if !slices.Contains([]string{"ok", "error", "code", "hint", "retry_after"}, k) {
			t.Errorf("%s: unexpected envelope member %q", r, k)
		}
	}
	if env.boolean(t, "ok") {
		t.Errorf("%s: ok is true on a failure", r)
	}
	if got := env.str(t, "code"); got != code {
		t.Errorf("%s: code %q, want %q", r, got, code)
	}
	if env.str(t, "error") == "" {
		t.Errorf("%s: empty error text", r)
	}
	return env
}

// wantPlain asserts a plain-text (not envelope) answer with the status.
func (r resp) wantPlain(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d", r, r.status, status)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("%s: Content-Type %q, want text/plain", r, ct)
	}
	if b := bytes.TrimSpace(r.body); len(b) == 0 || b[0] == '{' {
		t.Errorf("%s: want a plain-text reason, got %q", r, r.body)
	}
}

// wantSocialErr asserts the /social/* failure shape {status: error, msg}.
func (r resp) wantSocialErr(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d", r, r.status, status)
	}
	wantJSONType(t, r)
	o := decodeObj(t, r.body, r.String())
	o.wantKeys(t, r.String(), "status", "msg")
	if got := o.str(t, "status"); got != "error" {
		t.Errorf("%s: status member %q, want error", r, got)
	}
	if o.str(t, "msg") == "" {
		t.Errorf("%s: empty msg", r)
	}
}

// eventually polls f until it reports done or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, f func() (done bool, last string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		done, last := f()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last: %s", what, within, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
