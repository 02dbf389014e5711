package protocol

import (
	"strconv"

	json "github.com/goccy/go-json"
)

// PeekOp reads the `op` of an inbound realtime frame without decoding `d`.
// ok is false unless the frame is a JSON object whose op is a non-negative
// integer literal (not a string).
func PeekOp(b []byte) (op int, ok bool) {
	var f struct {
		Op json.RawMessage `json:"op"`
	}
	if unmarshalClient(b, &f) != nil || len(f.Op) == 0 || f.Op[0] < '0' || f.Op[0] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(string(f.Op))
	if err != nil || n > 255 {
		return 0, false
	}
	return n, true
}
