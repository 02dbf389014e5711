package edge

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
)

// TestUnusedConnectionClosedWithoutAnswer: a connection that sends no byte
// before ReadTimeout is closed without an answer (a pooled client
// connection read an unsolicited 400 before); one that stalls in the middle
// of its header gets 408.
func TestUnusedConnectionClosedWithoutAnswer(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := account.NewRegistry(st, time.Now)
	s := New(Deps{Store: st, Accounts: reg, AdminToken: "adm", Timings: protocol.DefaultTimings(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: Limits{ReadTimeout: 50 * time.Millisecond}})
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-served; err != nil {
			t.Error(err)
		}
	})

	read := func(send string) string {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if send != "" {
			if _, err := io.WriteString(c, send); err != nil {
				t.Fatal(err)
			}
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // the server's 50 ms end it long before
		b, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("read: %v (got %q)", err, b)
		}
		return string(b)
	}
	if got := read(""); got != "" {
		t.Errorf("unused connection answered %q, want a close without bytes", got)
	}
	if got := read("GET /health HTTP/1.1\r\nHost: x\r\n"); !strings.HasPrefix(got, "HTTP/1.1 408 ") {
		t.Errorf("stalled header answered %q, want 408", got)
	}
}
