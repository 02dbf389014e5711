package trending

import (
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// FrameType is the `type` of every frame of /v1/trending/ws.
const FrameType = "trending_tweet"

type frame struct {
	Type string    `json:"type"`
	Data frameData `json:"data"`
}

type frameData struct {
	Category string                 `json:"category"`
	Tweet    protocol.TrendingTweet `json:"tweet"`
}

// EncodeFrame encodes {type: trending_tweet, data: {category, tweet}}.
func EncodeFrame(o *protocol.TrendingObs) ([]byte, error) {
	return json.Marshal(frame{Type: FrameType, Data: frameData{Category: o.Category, Tweet: o.Tweet}})
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
