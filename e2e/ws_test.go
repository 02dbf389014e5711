package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/alertd/alertd/internal/testkit"
)

// wsClient is testkit's WebSocket client with the suite's protocol steps
// (realtime ops, product frames) as methods.
type wsClient struct{ *testkit.WS }

func (s *server) wsURL(path string) string { return "ws" + strings.TrimPrefix(s.base, "http") + path }

// dialFrom opens a WebSocket from local IP from ("" = the default). It
// returns the HTTP response when the upgrade was refused.
func dialFrom(t *testing.T, url, from string) (*wsClient, *http.Response, error) {
	t.Helper()
	return dialWith(t, url, testkit.DialOptions{From: from})
}

func dialWith(t *testing.T, url string, o testkit.DialOptions) (*wsClient, *http.Response, error) {
	t.Helper()
	w, r, err := testkit.DialWS(t, url, o)
	if err != nil {
		return nil, r, err
	}
	return &wsClient{w}, r, nil
}

// nextOp returns the next frame, asserting {"op":op,...}; it returns the
// whole frame decoded.
func (w *wsClient) nextOp(t *testing.T, op int) obj {
	t.Helper()
	b := w.Next(t)
	o := decodeObj(t, b, w.Name+" frame")
	if got := o.num(t, "op"); got != float64(op) {
		t.Fatalf("%s: frame op %v, want %d: %s", w.Name, got, op, b)
	}
	return o
}
