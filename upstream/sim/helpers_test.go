package sim

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/alertd/alertd/protocol"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// newIngestServer answers like the engine's ingest API: it decodes every
// NDJSON line with protocol.DecodeObservation.
func newIngestServer(t *testing.T, onAccepted func(int)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "application/x-ndjson" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var rejected []string
		accepted := 0
		for i, l := range protocol.SplitNDJSON(body) {
			if _, err := protocol.DecodeObservation(l, 1); err != nil {
				e, _ := json.Marshal(err.Error())
				rejected = append(rejected, fmt.Sprintf(`{"index":%d,"error":%s}`, i, e))
				t.Errorf("rejected: %v", err)
				continue
			}
			accepted++
		}
		onAccepted(accepted)
		fmt.Fprintf(w, `{"ok":true,"data":{"accepted":%d,"rejected":[%s]}}`, accepted, strings.Join(rejected, ","))
	}))
}
