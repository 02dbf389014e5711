// Package et is the Engagement Tracker: it watches the engagement counts of
// the posts accounts track and reports every change (spec 3): an
// engagement_update frame on the WebSocket and a webhook carrying the
// stored secret.
package et

import (
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Counts are a post's engagement counts, with spec 3's names.
type Counts struct {
	FavoriteCount int64 `json:"favorite_count"`
	RetweetCount  int64 `json:"retweet_count"`
	ReplyCount    int64 `json:"reply_count"`
	QuoteCount    int64 `json:"quote_count"`
	BookmarkCount int64 `json:"bookmark_count"`
}

// CountsOf reads the counts of an engagement observation.
func CountsOf(o *protocol.EngagementObs) Counts {
	return Counts{FavoriteCount: o.FavoriteCount, RetweetCount: o.RetweetCount, ReplyCount: o.ReplyCount,
		QuoteCount: o.QuoteCount, BookmarkCount: o.BookmarkCount}
}

// State is what the detector keeps per post: the counts and when they were
// last seen to change (epoch ms; the first observation counts as one).
type State struct {
	Counts
	UpdatedAt int64 `json:"updated_at"`
}

// Compare compares an observation with the last state of its post. The
// first observation is the baseline: known becomes true, nothing is
// reported. Later, changed is true when any count differs; next is the
// state to keep (UpdatedAt moves only on a change).
func Compare(prev State, known bool, cur Counts, at int64) (next State, changed bool) {
	if !known {
		return State{Counts: cur, UpdatedAt: at}, false
	}
	if cur == prev.Counts {
		return prev, false
	}
	return State{Counts: cur, UpdatedAt: at}, true
}

// Frame and event names of spec 3 "Events".
const FrameEngagementUpdate = "engagement_update"

// Update is the data of an engagement_update frame.
type Update struct {
	TweetID string `json:"tweet_id"`
	Old     Counts `json:"old"`
	New     Counts `json:"new"`
}

// webhookBody is the ET webhook body: {type, tweet_id, old, new}.
type webhookBody struct {
	Type    string `json:"type"`
	TweetID string `json:"tweet_id"`
	Old     Counts `json:"old"`
	New     Counts `json:"new"`
}

// Encode returns the WebSocket frame and the webhook body of an update.
func Encode(u *Update) (frame, body []byte, err error) {
	data, err := json.Marshal(u)
	if err != nil {
		return nil, nil, err
	}
	body, err = json.Marshal(&webhookBody{Type: FrameEngagementUpdate, TweetID: u.TweetID, Old: u.Old, New: u.New})
	if err != nil {
		return nil, nil, err
	}
	return protocol.AppendTypeDataFrame(nil, FrameEngagementUpdate, data), body, nil
}
