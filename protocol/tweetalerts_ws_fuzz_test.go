package protocol

import "testing"

// FuzzDecodeTweetAlertsRequest: whatever a client sends, decoding does not
// panic and every handle it returns is valid.
func FuzzDecodeTweetAlertsRequest(f *testing.F) {
	f.Add([]byte(`{"type":"subscribe","handles":["whale","@Degen"]}`))
	f.Add([]byte(`{"type":"ping"}`))
	f.Add([]byte(`{"type":"unsubscribe","handles":[1,null,{}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeTweetAlertsRequest(b)
		if err != nil {
			return
		}
		for _, h := range r.Handles {
			if !ValidHandle(h) {
				t.Fatalf("invalid handle %q decoded", h)
			}
		}
	})
}
