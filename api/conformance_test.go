package api_test

// The conformance test starts the engine in process (embedded store, a
// loopback port), drives every product's routes through their success and
// error paths, and checks every answer against the OpenAPI document.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/api/openapitest"
	"github.com/alertd/alertd/engine"
)

const (
	adminToken = "adm_conformance_test_token"
	botToken   = "123456:conformance-test-bot"
)

// harness is one engine and a client that checks what it answers.
type harness struct {
	e      *engine.Engine
	base   string
	client *http.Client
	v      *openapitest.Validator
	keys   map[string]string // product -> key
	accts  map[string]string // product -> account id
	// succeeded holds "METHOD /path/{pattern}" of every route that answered
	// a call with 2xx or 101.
	succeeded map[string]bool
}

// startEngine runs an engine on 127.0.0.1:0 with an embedded store in a
// temporary directory. Rate windows are shortened so that the test's bursts
// are never refused (429 is exercised on purpose where it is wanted).
func startEngine(t *testing.T) *harness {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.AdminToken = adminToken
	cfg.WebhookAllowCIDRs = []string{"127.0.0.0/8"}
	cfg.TelegramBotToken = botToken
	cfg.Timings.RateWindow = time.Millisecond
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e, err := engine.Start(context.Background(), &cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = e.Serve()
	}()
	t.Cleanup(func() {
		e.Close()
		<-served
	})
	// Wait until the listener serves: an engine closed before Serve has
	// begun leaves Serve blocked in Accept.
	base := "http://" + e.Addr().String()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the engine did not become healthy within 10 s")
		}
	}
	v, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return &harness{e: e, base: base, v: v,
		client: &http.Client{Timeout: 15 * time.Second},
		keys:   map[string]string{}, accts: map[string]string{}, succeeded: map[string]bool{}}
}

// call is one request.
type call struct {
	method, path string
	key          string            // Authorization: Bearer <key>; "" = none
	header       map[string]string // more headers
	body         any               // JSON-encoded; a string or []byte is sent as is
	ctype        string            // default application/json when there is a body
	want         int               // expected status
	// invalid: the request breaks the document on purpose (only the
	// answer is checked).
	invalid bool
	// docPath is the path the document knows the call by, where it differs
	// from path: a catch-all's value sent with its slashes (/assets/a/b.js)
	// is the document's one parameter (/assets/a%2Fb.js).
	docPath string
}

// reply is one answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// data decodes the envelope's data into v.
func (r reply) data(t *testing.T, v any) {
	t.Helper()
	var env struct {
		OK   bool            `json:"ok"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || !env.OK {
		t.Fatalf("not a success envelope: %s", r.body)
	}
	if err := json.Unmarshal(env.Data, v); err != nil {
		t.Fatalf("data: %v: %s", err, env.Data)
	}
}

// code is the envelope's error code.
func (r reply) code() string {
	var env struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(r.body, &env)
	return env.Code
}

// send makes the request and checks the answer against the document (and,
// for a call that wants a 2xx, the request too).
func (h *harness) send(t *testing.T, c call) reply {
	t.Helper()
	var body []byte
	switch b := c.body.(type) {
	case nil:
	case string:
		body = []byte(b)
	case []byte:
		body = b
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(c.method, h.base+c.path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if c.body != nil {
		ct := c.ctype
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	vreq := req // what the document is asked about
	if c.docPath != "" {
		if vreq, err = http.NewRequest(c.method, h.base+c.docPath, nil); err != nil {
			t.Fatal(err)
		}
		vreq.Header = req.Header.Clone()
	}
	if c.want/100 == 2 && c.body != nil && !c.invalid {
		if err := h.v.Request(vreq, body); err != nil {
			t.Errorf("openapi (request): %v", err)
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.v.Response(vreq, resp.StatusCode, resp.Header, rb); err != nil {
		t.Errorf("openapi: %v", err)
	}
	if resp.StatusCode/100 == 2 {
		h.record(c.method, req.URL.Path)
	}
	if c.want != 0 && resp.StatusCode != c.want {
		t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, resp.StatusCode, c.want, rb)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: rb}
}

// eventually repeats c until ok holds for its answer (ingest is processed
// asynchronously), checking every answer; it fails after 20 seconds.
func (h *harness) eventually(t *testing.T, c call, ok func(reply) bool) reply {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		want := c.want
		c.want = 0
		r := h.send(t, c)
		c.want = want
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: condition not met after 20 s; last answer %d: %s", c.method, c.path, r.status, r.body)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// issue makes a key for product on a new account (or acct) with the
// subscription fields of extra.
func (h *harness) issue(t *testing.T, product, acct string, extra map[string]any) (key, account string) {
	t.Helper()
	body := map[string]any{"product": product}
	if acct != "" {
		body["account_id"] = acct
	}
	for k, v := range extra {
		body[k] = v
	}
	r := h.send(t, call{method: "POST", path: "/admin/v1/keys", key: adminToken, body: body, want: 201})
	var d struct {
		AccountID string `json:"account_id"`
		Key       string `json:"key"`
	}
	r.data(t, &d)
	return d.Key, d.AccountID
}

// ingest posts NDJSON lines.
func (h *harness) ingest(t *testing.T, lines ...string) {
	t.Helper()
	r := h.send(t, call{method: "POST", path: "/ingest/v1/observations", key: adminToken,
		body: strings.Join(lines, "\n") + "\n", ctype: "application/x-ndjson", want: 200})
	var d struct {
		Accepted int               `json:"accepted"`
		Rejected []json.RawMessage `json:"rejected"`
	}
	r.data(t, &d)
	if d.Accepted != len(lines) {
		t.Fatalf("ingest accepted %d of %d: %s", d.Accepted, len(lines), r.body)
	}
}

// obs encodes one observation line.
func obs(kind string, fields map[string]any) string {
	fields["kind"] = kind
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// plainFailures sends the unreadable bodies every JSON route answers in
// plain text: no body (400), invalid JSON (400), another type (415), over
// 64 KB (413).
func (h *harness) plainFailures(t *testing.T, method, path, key string) {
	t.Helper()
	for _, c := range []call{
		{method: method, path: path, key: key, body: "", want: 400},
		{method: method, path: path, key: key, body: "{not json", want: 400},
		{method: method, path: path, key: key, body: "x=1", ctype: "application/x-www-form-urlencoded", want: 415},
		{method: method, path: path, key: key, body: `{"pad":"` + strings.Repeat("x", 65*1024) + `"}`, want: 413},
	} {
		r := h.send(t, c)
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("%s %s (%d): Content-Type %q, want plain text", method, path, r.status, ct)
		}
	}
}

// record notes that the route serving method and path succeeded.
func (h *harness) record(method, path string) {
	for _, r := range h.e.Routes() {
		if r.Method == method && matches(r.Path, path) {
			h.succeeded[r.Method+" "+r.Path] = true
		}
	}
}

// matches reports whether path fits the router pattern ({name} is one
// segment; a trailing catch-all {name:*} is the rest of the path).
func matches(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if last := ps[len(ps)-1]; strings.HasPrefix(last, "{") && strings.HasSuffix(last, ":*}") && len(xs) > len(ps) {
		xs = append(xs[:len(ps)-1], strings.Join(xs[len(ps)-1:], "/"))
	}
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if ps[i] != xs[i] && !(strings.HasPrefix(ps[i], "{") && xs[i] != "") {
			return false
		}
	}
	return true
}

// everyRouteSucceeded fails t for each route no call got a success from.
func (h *harness) everyRouteSucceeded(t *testing.T) {
	for _, r := range h.e.Routes() {
		if !h.succeeded[r.Method+" "+r.Path] {
			t.Errorf("no call of %s %s succeeded", r.Method, r.Path)
		}
	}
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func fmtPath(format string, args ...any) string { return fmt.Sprintf(format, args...) }
