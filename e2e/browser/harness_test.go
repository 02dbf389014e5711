package browser

// The engine side: one engine per test, in process on 127.0.0.1:0 with the
// embedded store, and the few admin and ingest calls the tests make.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

type server struct {
	eng   *engine.Engine
	base  string // http://127.0.0.1:port
	host  string // 127.0.0.1:port
	admin string
	log   *testkit.LogBuffer
}

var client = &http.Client{Timeout: 30 * time.Second}

// startServer starts an engine; configure may change its Config.
func startServer(t *testing.T, configure func(*engine.Config)) *server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser tests")
	}
	cfg := engine.DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.AdminToken = "127.0.0.1:0", t.TempDir(), "adm_browser_"+testkit.RandomHex(16)
	cfg.WebhookAllowCIDRs = []string{"127.0.0.0/8"}
	if configure != nil {
		configure(&cfg)
	}
	s := &server{admin: cfg.AdminToken, log: &testkit.LogBuffer{}}
	log := slog.New(slog.NewJSONHandler(s.log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, err := engine.Start(ctx, &cfg, log)
	if err != nil {
		t.Fatalf("engine.Start: %v\n%s", err, testkit.Tail(s.log.String(), 4000))
	}
	s.eng, s.host = eng, eng.Addr().String()
	s.base = "http://" + s.host
	served := make(chan error, 1)
	go func() { served <- eng.Serve() }()
	t.Cleanup(func() {
		client.CloseIdleConnections()
		eng.Close()
		select {
		case <-served:
		case <-time.After(15 * time.Second):
			t.Errorf("Serve did not return within 15 s of Close")
		}
		if t.Failed() {
			t.Logf("engine log (tail):\n%s", testkit.Tail(s.log.String(), 4000))
		}
	})
	return s
}

// call sends a JSON request with the admin bearer and returns the
// envelope's data; a status other than want fails the test.
func (s *server) call(t *testing.T, method, path string, body any, want int) map[string]any {
	t.Helper()
	return s.callAs(t, s.admin, method, path, body, want)
}

// callAs is call with another bearer (an API key).
func (s *server) callAs(t *testing.T, bearer, method, path string, body any, want int) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, raw, want)
	}
	var env struct {
		Data map[string]any `json:"data"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Data
}

// issue makes a key: {"product": ..., "plan": ...}; it returns the key and
// the account id.
func (s *server) issue(t *testing.T, body map[string]any) (key, acct string) {
	t.Helper()
	d := s.call(t, "POST", "/admin/v1/keys", body, 201)
	return d["key"].(string), d["account_id"].(string)
}

// ingest sends observations and waits until the engine handled them.
func (s *server) ingest(t *testing.T, obs ...map[string]any) {
	t.Helper()
	var b strings.Builder
	for _, o := range obs {
		line, _ := json.Marshal(o)
		b.Write(line)
		b.WriteByte('\n')
	}
	req, _ := http.NewRequest("POST", s.base+"/ingest/v1/observations", strings.NewReader(b.String()))
	req.Header.Set("Authorization", "Bearer "+s.admin)
	req.Header.Set("Content-Type", "application/x-ndjson")
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("ingest: %v", err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(raw), fmt.Sprintf(`"accepted":%d`, len(obs))) {
		t.Fatalf("ingest: %d %s", res.StatusCode, raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.eng.Sync(ctx); err != nil {
		t.Fatalf("engine Sync: %v", err)
	}
}

var seq atomic.Int64

// user is a `user` observation of a new handle (id and handle returned in
// the map); avatars are on the test server, so the page loads nothing from
// another host.
func (s *server) user(prefix string) map[string]any {
	n := seq.Add(1)
	h := fmt.Sprintf("%s_%s%d", prefix, testkit.RandomHex(3), n)
	return map[string]any{"kind": "user", "id": fmt.Sprintf("66%d%05d", time.Now().UnixNano()%1e9, n), "handle": h,
		"name": "Browser " + h, "bio": "bio", "avatar": s.base + "/assets/shared/logo.svg", "banner_url": nil,
		"location": nil, "website": nil, "followers": 100 + n, "following": 10, "verified": false,
		"verification_type": nil, "pinned_post": []string{}, "categories": []string{}, "suspended": false}
}

// post is a fresh `post` observation by u with text and one image.
func (s *server) post(u map[string]any, text string) map[string]any {
	id := fmt.Sprintf("19%d%04d", time.Now().UnixNano()%1e13, seq.Add(1)%1e4)
	return map[string]any{"kind": "post", "id": id, "created_at": time.Now().UnixMilli(), "type": "post", "text": text,
		"cashtags": []string{}, "media": []any{map[string]any{"type": "photo", "url": s.base + "/assets/shared/logo.svg"}},
		"mentions": []string{}, "author": map[string]any{"id": u["id"], "handle": u["handle"], "name": u["name"],
			"avatar": u["avatar"], "description": "bio", "verification": map[string]any{"is_verified": false, "type": nil},
			"affiliation": nil, "stats": map[string]any{"followers": 100, "following": 10}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": map[string]any{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  map[string]any{"likes": 0, "retweets": 0, "replies": 0, "quotes": 0, "views": "1"}}
}

// jsonText is v as JSON.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
