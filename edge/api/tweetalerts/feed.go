package tweetalerts

import (
	"context"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// Feed page sizes.
const (
	feedDefaultLimit = 50
	feedMaxLimit     = 200
)

// feedView is a page of GET /v1/feed. Items are Tweet alerts (the spec
// shows no feed item fields; the alert's are the ones a dashboard needs).
// next_before is the cursor of the next page, null on the last one.
type feedView struct {
	Items      []protocol.TweetAlert `json:"items"`
	Count      int                   `json:"count"`
	NextBefore *string               `json:"next_before"`
}

// parseBefore reads an ISO 8601 date-time (RFC 3339, or without a zone as
// UTC, or a bare date).
func parseBefore(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// feed is GET /v1/feed?limit=&before=: the newest posts of every tracked
// account, created before the cursor.
func (a *api) feed(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	args := ctx.QueryArgs()
	limit := feedDefaultLimit
	if v := args.Peek("limit"); len(v) > 0 {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1 {
			return 0, nil, protocol.BadRequest("limit must be a positive integer")
		}
		limit = min(n, feedMaxLimit)
	}
	before := a.k.Now().Add(time.Hour) // posts may carry a clock slightly ahead
	if v := args.Peek("before"); len(v) > 0 {
		t, ok := parseBefore(string(v))
		if !ok {
			return 0, nil, protocol.BadRequest("before must be an ISO 8601 date-time, e.g. 2026-01-02T15:04:05Z")
		}
		before = t
	}
	list := a.trackedList(p)
	handles := make([]string, len(list))
	for i, t := range list {
		handles[i] = t.handle
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	posts, more, err := a.feedPage(cctx, handles, before, limit)
	if err != nil {
		return 0, nil, err
	}
	v := feedView{Items: make([]protocol.TweetAlert, 0, len(posts))}
	for _, post := range posts {
		var t protocol.Tweet
		if json.Unmarshal(post.Data, &t) != nil {
			continue
		}
		v.Items = append(v.Items, protocol.NewTweetAlert(&t, post.DetectedAt.UnixMilli()))
	}
	v.Count = len(v.Items)
	if more {
		// The page's oldest millisecond, exclusive: feedPage ends a page
		// only between two milliseconds, so none of its posts is left out.
		c := posts[len(posts)-1].CreatedAt.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano)
		v.NextBefore = &c
	}
	return 200, v, nil
}

// feedGroupMax bounds a page that must hold one millisecond's posts whole.
const feedGroupMax = 5000

// feedPage reads up to limit posts created before `before`, newest first,
// and reports whether older ones remain. The cursor is a time with
// millisecond precision, so a page never splits the posts of one
// millisecond: it ends before the oldest millisecond it would have split
// (their posts open the next page), or, when one millisecond holds more
// than limit posts, it holds them all (up to feedGroupMax).
func (a *api) feedPage(ctx context.Context, handles []string, before time.Time, limit int) ([]persistence.Post, bool, error) {
	posts, err := a.d.Store.FeedPosts(ctx, handles, before, limit+1)
	if err != nil || len(posts) <= limit {
		return posts, false, err
	}
	ms := func(p persistence.Post) int64 { return p.CreatedAt.UnixMilli() }
	edge := ms(posts[limit])
	cut := limit
	for cut > 0 && ms(posts[cut-1]) == edge {
		cut--
	}
	if cut > 0 {
		return posts[:cut], true, nil
	}
	// One millisecond fills the page: take all of its posts.
	next := time.UnixMilli(edge + 1)
	group, err := a.d.Store.FeedPosts(ctx, handles, next, feedGroupMax)
	if err != nil {
		return nil, false, err
	}
	n := 0
	for n < len(group) && ms(group[n]) == edge {
		n++
	}
	return group[:n], true, nil
}
