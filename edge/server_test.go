package edge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

type testServer struct {
	s   *Server
	reg *account.Registry
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := account.NewRegistry(st, time.Now)
	if err := reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := New(Deps{Store: st, Accounts: reg, AdminToken: "adm", Timings: protocol.DefaultTimings(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &testServer{s: s, reg: reg}
}

// do runs one request through the server's handler and returns the response.
func (ts *testServer) do(method, uri string, headers map[string]string) *fasthttp.Response {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(uri)
	for k, v := range headers {
		ctx.Request.Header.Set(k, v)
	}
	ts.s.srv.Handler(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	return &resp
}

func envelopeCode(t *testing.T, r *fasthttp.Response) string {
	t.Helper()
	var env protocol.Envelope
	if err := json.Unmarshal(r.Body(), &env); err != nil {
		t.Fatalf("not JSON: %s", r.Body())
	}
	return env.Code
}

func TestNotFoundShapes(t *testing.T) {
	ts := newTestServer(t)
	if r := ts.do("GET", "/v1/nothing", nil); r.StatusCode() != 404 || envelopeCode(t, r) != "not_found" {
		t.Fatalf("/v1 404: %d %s", r.StatusCode(), r.Body())
	}
	if r := ts.do("GET", "/social/nothing", nil); r.StatusCode() != 404 || string(r.Body()) != `{"status":"error","msg":"no such endpoint"}` {
		t.Fatalf("/social 404: %d %s", r.StatusCode(), r.Body())
	}
	if r := ts.do("GET", "/nothing", nil); r.StatusCode() != 404 || !strings.HasPrefix(string(r.Header.ContentType()), "text/plain") {
		t.Fatalf("plain 404: %d %s", r.StatusCode(), r.Header.ContentType())
	}
}

// pinger fails its pings when down.
type pinger struct{ down bool }

func (p *pinger) Ping(context.Context) error {
	if p.down {
		return errors.New("store down")
	}
	return nil
}

// TestHealth: 200 while the store answers and the listener accepts, 503
// degraded otherwise; a bare object either way, with the store's size (null
// when unknown).
func TestHealth(t *testing.T) {
	st := &pinger{}
	size := int64(-1)
	s := New(Deps{Store: st, StoreBytes: func(context.Context) int64 { return size }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := &testServer{s: s}
	if r := ts.do("GET", "/health", nil); r.StatusCode() != 503 ||
		string(r.Body()) != `{"status":"degraded","db":"ok","listeners":0,"ws_connections":0,"store_bytes":null}` {
		t.Errorf("not serving: %d %s", r.StatusCode(), r.Body())
	}
	s.serving.Store(true)
	size = 8192
	if r := ts.do("GET", "/health", nil); r.StatusCode() != 200 ||
		string(r.Body()) != `{"status":"ok","db":"ok","listeners":1,"ws_connections":0,"store_bytes":8192}` {
		t.Errorf("serving: %d %s", r.StatusCode(), r.Body())
	}
	st.down = true
	if r := ts.do("GET", "/health", nil); r.StatusCode() != 503 ||
		string(r.Body()) != `{"status":"degraded","db":"unavailable","listeners":1,"ws_connections":0,"store_bytes":8192}` {
		t.Errorf("store down: %d %s", r.StatusCode(), r.Body())
	}
}

func TestTransportError(t *testing.T) {
	var ctx fasthttp.RequestCtx
	ts := newTestServer(t)
	ts.s.transportError(&ctx, fasthttp.ErrBodyTooLarge)
	if ctx.Response.StatusCode() != 413 || string(ctx.Response.Body()) != "request body too large: limit is 65536 bytes\n" {
		t.Errorf("too large: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	ctx = fasthttp.RequestCtx{}
	ts.s.transportError(&ctx, errors.New("garbage"))
	if ctx.Response.StatusCode() != 400 {
		t.Errorf("garbage: %d", ctx.Response.StatusCode())
	}
}

// TestHandlerPanicAnswers500: a panic in a route's handler (here the
// metrics handler, which the server takes from outside) answers 500
// server_error instead of crashing the process.
func TestHandlerPanicAnswers500(t *testing.T) {
	s := New(Deps{Accounts: account.NewRegistry(nil, time.Now), AdminToken: "adm", Timings: protocol.DefaultTimings(),
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics: func(*fasthttp.RequestCtx) { panic("metrics exploded") }})
	ts := &testServer{s: s}
	r := ts.do("GET", "/metrics", map[string]string{"Authorization": "Bearer adm"})
	if r.StatusCode() != 500 || envelopeCode(t, r) != protocol.CodeServerError {
		t.Fatalf("panicking handler: %d %s", r.StatusCode(), r.Body())
	}
}
