package watchlist

import (
	"strconv"
	"time"
)

// ISOTime formats epoch milliseconds as ISO 8601 in UTC with milliseconds,
// the form of detected_at and last_updated in the watch products' data.
func ISOTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// WebhookBody is the webhook body of CW and CT (spec 3 "Events"):
// {"event":<event>,"timestamp":<epoch ms>,"data":<data>}.
func WebhookBody(event string, timestampMS int64, data []byte) []byte {
	b := make([]byte, 0, len(data)+len(event)+48)
	b = append(b, `{"event":`...)
	b = strconv.AppendQuote(b, event)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, timestampMS, 10)
	b = append(b, `,"data":`...)
	b = append(b, data...)
	return append(b, '}')
}
