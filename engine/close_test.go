package engine

import (
	"context"
	"testing"
	"time"
)

// TestCloseBeforeServe: an engine closed before its Serve got going does
// not leave Serve blocked on the listener.
func TestCloseBeforeServe(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.AdminToken = "127.0.0.1:0", t.TempDir(), "adm_close_before_serve"
	e, err := Start(context.Background(), &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	done := make(chan error, 1)
	go func() { done <- e.Serve() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still blocked 10 s after Close")
	}
}
