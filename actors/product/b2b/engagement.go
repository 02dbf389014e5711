package b2b

import (
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Counts are the engagement counts of a post as a lookup shows them; nil
// where unknown.
type Counts struct {
	Likes, Retweets, Replies, Quotes, Views, Bookmarks *int64
}

// CurrentCounts combines a stored post (first detected at firstSeen) with the
// latest engagement kept for it (nil if none): the engagement counts win when
// they were observed no earlier than the post, and fill what the post lacks
// (bookmarks always come from engagement; views only from the post).
func CurrentCounts(t *protocol.Tweet, firstSeen time.Time, e *persistence.LatestEngagement) Counts {
	m := t.Metrics
	c := Counts{Likes: m.Likes, Retweets: m.Retweets, Replies: m.Replies, Quotes: m.Quotes, Views: ViewCount(m.Views)}
	if e == nil {
		return c
	}
	newer := !e.ObservedAt.Before(firstSeen)
	pick := func(post, eng *int64) *int64 {
		if eng != nil && (newer || post == nil) {
			return eng
		}
		return post
	}
	c.Likes, c.Retweets, c.Replies, c.Quotes = pick(c.Likes, e.Likes), pick(c.Retweets, e.Retweets), pick(c.Replies, e.Replies), pick(c.Quotes, e.Quotes)
	c.Bookmarks = e.Bookmarks
	return c
}
