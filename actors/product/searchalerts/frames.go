package searchalerts

// FrameType is the `type` of every frame of /v1/sa/ws.
const FrameType = "search_alert"

// Alert is the search_alert data (spec 3).
type Alert struct {
	QueryID     int64  `json:"query_id"`
	QueryText   string `json:"query_text"`
	TweetID     string `json:"tweet_id"`
	FullText    string `json:"full_text"`
	ScreenName  string `json:"screen_name"`
	DisplayName string `json:"display_name"`
	TweetURL    string `json:"tweet_url"`
}

// NewAlert is the alert of query q for post p.
func NewAlert(queryID int64, queryText string, p Post) Alert {
	return Alert{QueryID: queryID, QueryText: queryText, TweetID: p.TweetID, FullText: p.Text, ScreenName: p.ScreenName,
		DisplayName: p.DisplayName, TweetURL: "https://x.com/" + p.ScreenName + "/status/" + p.TweetID}
}
