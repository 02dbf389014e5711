package watchlist

import (
	"encoding/json"
	"testing"
)

func TestISOTime(t *testing.T) {
	for ms, want := range map[int64]string{
		0:             "1970-01-01T00:00:00.000Z",
		1779356562123: "2026-05-21T09:42:42.123Z",
		1779356562000: "2026-05-21T09:42:42.000Z",
	} {
		if got := ISOTime(ms); got != want {
			t.Errorf("ISOTime(%d) = %q, want %q", ms, got, want)
		}
	}
}

func TestWebhookBody(t *testing.T) {
	data := []byte(`{"a":1,"b":"x"}`)
	w := WebhookBody("convergence_detected", 1779356562123, data)
	if string(w) != `{"event":"convergence_detected","timestamp":1779356562123,"data":{"a":1,"b":"x"}}` {
		t.Errorf("WebhookBody = %s", w)
	}
	for _, b := range [][]byte{w} {
		if !json.Valid(b) {
			t.Errorf("not valid JSON: %s", b)
		}
	}
}
