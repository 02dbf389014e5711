package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestMain checks that Close leaves nothing of the engine running.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// TestSyncPersistsWhatWasAccepted: once ingest has answered, Sync returns
// only after the observations went through their actors and the writer put
// them in the store.
func TestSyncPersistsWhatWasAccepted(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.AdminToken = "127.0.0.1:0", dir, "adm_sync_test"
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	e, err := Start(t.Context(), &cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- e.Serve() }()
	defer func() {
		e.Close()
		<-served
	}()

	const n = 200
	var obs []any
	for i := range n {
		obs = append(obs, map[string]any{"kind": "user", "id": fmt.Sprint(1000 + i), "handle": fmt.Sprintf("sync_%d", i),
			"name": "Sync", "bio": "", "avatar": "https://pbs.example.com/s.jpg", "followers": i, "following": 1,
			"verified": false, "pinned_post": []string{}, "categories": []string{}, "suspended": false})
	}
	req, err := http.NewRequest("POST", "http://"+e.Addr().String()+"/ingest/v1/observations", strings.NewReader(testkit.NDJSON(t, obs...)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+cfg.AdminToken)
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Close = true
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("ingest: HTTP %d", r.StatusCode)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if b := e.router.Backlog(); b != 0 {
		t.Errorf("ingest backlog %d after Sync", b)
	}
	users, err := e.Store().ListUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != n {
		t.Fatalf("%d users in the store after Sync, want %d", len(users), n)
	}
	// Nothing new: Sync returns at once.
	if err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}
