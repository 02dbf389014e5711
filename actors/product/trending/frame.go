package trending

import (
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// FrameType is the `type` of every frame of /v1/trending/ws.
const FrameType = "trending_tweet"

// frameData is the frame's data: {category, tweet}.
type frameData struct {
	Category string                 `json:"category"`
	Tweet    protocol.TrendingTweet `json:"tweet"`
}

// encodeFrame encodes {type: trending_tweet, data: {category, tweet}}.
func encodeFrame(o *protocol.TrendingObs) ([]byte, error) {
	data, err := json.Marshal(frameData{Category: o.Category, Tweet: o.Tweet})
	if err != nil {
		return nil, err
	}
	return protocol.AppendTypeDataFrame(make([]byte, 0, len(data)+32), FrameType, data), nil
}

// Normalize turns the categories of PUT /v1/trending/subscriptions into the
// stored list: normalized slugs (protocol.NormalizeCategory), unknown ones
// dropped (spec 3: "unknown slugs ignored"), each once, in the canonical
// order of protocol.TrendingSlugs. It never returns nil.
func Normalize(in []string) []string {
	want := make(map[string]bool, len(in))
	for _, c := range in {
		want[protocol.NormalizeCategory(c)] = true
	}
	out := []string{}
	for _, s := range protocol.TrendingSlugs {
		if want[s] {
			out = append(out, s)
		}
	}
	return out
}
