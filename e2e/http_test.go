package e2e

// HTTP and JSON helpers: requests as a client sends them, and assertions on
// the answers' exact shapes.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/api/openapitest"
	"github.com/alertd/alertd/internal/testkit"
)

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
	return fmt.Sprintf("%s %s -> %d %s %s", r.method, r.path, r.status, r.header.Get("Content-Type"), testkit.Tail(string(r.body), 600))
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
	checkDocumented(t, req, r.StatusCode, r.Header, b)
	return resp{method: method, path: path, status: r.StatusCode, header: r.Header, body: b}
}

// checkDocumented fails the test when an answer does not match the OpenAPI
// document (api/openapi.yaml): every answer the suite receives is checked,
// so the server and the document cannot drift apart.
func checkDocumented(t *testing.T, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	v, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Response(req, status, header, body); err != nil {
		t.Errorf("openapi: %v", err)
	}
}

// call sends a request with key as bearer; body is nil (none), raw JSON
// (string or []byte) or a value to marshal, sent as application/json.
func (s *server) call(t *testing.T, method, path, key string, body any) resp {
	t.Helper()
	h := bearer(key)
	switch b := body.(type) {
	case nil:
	case string, []byte:
		h["Content-Type"] = "application/json"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		body = j
		h["Content-Type"] = "application/json"
	}
	return s.do(t, method, path, h, body)
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
		t.Fatalf("raw request %q: %v", testkit.Tail(req, 200), err)
	}
	defer hr.Body.Close()
	b, err := io.ReadAll(hr.Body)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(req, "\r\n")
	if method, target, ok := strings.Cut(line, " "); ok {
		target, _, _ = strings.Cut(target, " ")
		if hreq, err := http.NewRequest(method, s.base+target, nil); err == nil {
			checkDocumented(t, hreq, hr.StatusCode, hr.Header, b)
		}
	}
	return resp{method: "RAW", path: line, status: hr.StatusCode, header: hr.Header, body: b}
}

// obj is a decoded JSON object, each member kept raw.
type obj map[string]json.RawMessage

func decodeObj(t *testing.T, b []byte, what string) obj {
	t.Helper()
	var o obj
	if err := json.Unmarshal(b, &o); err != nil || o == nil {
		t.Fatalf("%s: not a JSON object: %v: %s", what, err, testkit.Tail(string(b), 400))
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
