package ingest

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/protocol"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// router counts what it is given; backlog is what it reports.
type router struct {
	routed       []*protocol.Observation
	backlog      atomic.Int64
	backlogBytes atomic.Int64
}

func (r *router) Route(o *protocol.Observation) { r.routed = append(r.routed, o) }
func (r *router) Backlog() int64                { return r.backlog.Load() }
func (r *router) BacklogBytes() int64           { return r.backlogBytes.Load() }

func TestIngest(t *testing.T) {
	e := httpkittest.New(t, nil)
	rt := &router{}
	h := httpkittest.Router(Routes(e.Kit, Deps{Router: rt, MaxBacklogBytes: 1 << 20}))
	post := func(ctype, body string) (int, string, string) {
		r := httpkittest.Do(h, httpkittest.Request{Method: "POST", URI: "/ingest/v1/observations",
			Headers: map[string]string{"Authorization": "Bearer adm", "Content-Type": ctype}, Body: body})
		return r.StatusCode(), string(r.Body()), string(r.Header.Peek("Retry-After"))
	}
	user := `{"kind":"user","id":"1","handle":"whale"}`
	status, body, _ := post("application/x-ndjson", user+"\n{\"kind\":\"nope\"}\n"+user)
	if status != 200 || !strings.Contains(body, `"accepted":2`) || !strings.Contains(body, `"index":1`) || len(rt.routed) != 2 {
		t.Fatalf("ndjson: %d %s (%d routed)", status, body, len(rt.routed))
	}
	if status, body, _ := post("application/json; charset=utf-8", "["+user+"]"); status != 200 || !strings.Contains(body, `"accepted":1,"rejected":[]`) {
		t.Errorf("array: %d %s", status, body)
	}
	if status, _, _ := post("application/json", `{"kind":"user"}`); status != 400 {
		t.Errorf("object instead of array: %d", status)
	}
	if status, _, _ := post("text/plain", user); status != 415 {
		t.Errorf("text/plain: %d", status)
	}
	rt.backlog.Store(MaxBacklog + 1)
	if status, body, retry := post("application/x-ndjson", user); status != 503 || retry != "1" || !strings.Contains(body, "service_unavailable") {
		t.Errorf("backlog full: %d %s Retry-After %q", status, body, retry)
	}
	rt.backlog.Store(1)
	rt.backlogBytes.Store(1<<20 + 1)
	if status, body, retry := post("application/x-ndjson", user); status != 503 || retry != "1" || !strings.Contains(body, "service_unavailable") {
		t.Errorf("backlog full in bytes: %d %s Retry-After %q", status, body, retry)
	}
	rt.backlogBytes.Store(1 << 20)
	if status, body, _ := post("application/x-ndjson", user); status != 200 {
		t.Errorf("backlog at its bound in bytes: %d %s", status, body)
	}
}
