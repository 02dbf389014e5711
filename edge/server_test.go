package edge

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/directory"
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
	s := New(Deps{Store: st, Registry: reg, Dir: directory.New(), AdminToken: "adm", Timings: protocol.DefaultTimings(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &testServer{s: s, reg: reg}
}

func accountChanges(p protocol.Product) account.Changes {
	if p == protocol.ProductTweetAlerts {
		plan := "ultra"
		return account.Changes{Plan: &plan}
	}
	return account.Changes{}
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
