package upstream

import (
	"errors"

	json "github.com/goccy/go-json"
)

// Encode turns v, a JSON object without a kind (a protocol.Tweet, a
// protocol.UserObs, ...), into one ingest line: {"kind":"<kind>",<v's fields>}.
// The result is what protocol.DecodeObservation reads.
func Encode(kind string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' {
		return nil, errors.New("upstream: observation must encode as a JSON object")
	}
	out := make([]byte, 0, len(b)+len(kind)+12)
	out = append(out, `{"kind":"`...)
	out = append(out, kind...)
	out = append(out, '"')
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}
