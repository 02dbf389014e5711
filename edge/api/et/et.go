package et

import (
	"errors"
	"fmt"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// tweetLimit is an et plan's ceiling (CONTRACT.md: default 25).
func tweetLimit(p *account.Principal) int {
	if p.Sub.MaxTweets > 0 {
		return p.Sub.MaxTweets
	}
	return protocol.TweetPlanSizes[0]
}

type targetView struct {
	TweetID string `json:"tweet_id"`
	AddedAt string `json:"added_at"`
}

type targetListView struct {
	TweetIDs  []string     `json:"tweet_ids"`
	Targets   []targetView `json:"targets"`
	Count     int          `json:"count"`
	MaxTweets int          `json:"max_tweets"`
}

func (a *api) listTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	items := a.d.Registry.Items(p.AccountID)
	v := targetListView{TweetIDs: make([]string, 0, len(items)), Targets: make([]targetView, 0, len(items)),
		Count: len(items), MaxTweets: tweetLimit(p)}
	for _, it := range items {
		v.TweetIDs = append(v.TweetIDs, it.Name)
		v.Targets = append(v.Targets, targetView{TweetID: it.Name, AddedAt: httpkit.WatchTime(it.AddedAt)})
	}
	return 200, v, nil
}

type addedView struct {
	Added          []string `json:"added"`
	AlreadyTracked []string `json:"already_tracked"`
	Count          int      `json:"count"`
	MaxTweets      int      `json:"max_tweets"`
}

// addTargets is POST /v1/et/targets: `tweet_ids`, a non-empty array of
// post ids. All or none: 403 forbidden when the new ids do not fit in the
// plan, and nothing is added.
func (a *api) addTargets(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	ids, err := tweetIDs(m)
	if err != nil {
		return 0, nil, err
	}
	d := &a.d
	max := tweetLimit(p)
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	added, existing, err := d.Registry.AddMany(cctx, p.AccountID, ids, func(string) struct{} { return struct{}{} }, max)
	if errors.Is(err, watchlist.ErrLimit) {
		have := d.Registry.Count(p.AccountID)
		return 0, nil, protocol.Forbidden(fmt.Sprintf("tweet limit reached: %d tracked, plan allows %d", have, max)).
			WithHint("remove posts with DELETE /v1/et/targets/{tweet_id}, or upgrade your plan")
	}
	if err != nil {
		return 0, nil, err
	}
	v := addedView{Added: make([]string, 0, len(added)), AlreadyTracked: existing, Count: d.Registry.Count(p.AccountID), MaxTweets: max}
	for _, it := range added {
		v.Added = append(v.Added, it.Name)
	}
	if v.AlreadyTracked == nil {
		v.AlreadyTracked = []string{}
	}
	return 201, v, nil
}

// tweetIDs reads `tweet_ids`: 422 when absent, 400 unless a non-empty
// array of post ids (1 to 20 digits).
func tweetIDs(m map[string]json.RawMessage) ([]string, error) {
	raw, ok := m["tweet_ids"]
	if !ok {
		return nil, httpkit.MissingField("tweet_ids")
	}
	var ids []string
	if httpkit.IsNull(raw) || json.Unmarshal(raw, &ids) != nil {
		return nil, protocol.BadRequest("tweet_ids must be an array of strings")
	}
	if len(ids) == 0 {
		return nil, protocol.BadRequest("tweet_ids must not be empty")
	}
	for _, id := range ids {
		if !protocol.ValidNumericID(id) {
			return nil, protocol.BadRequest(fmt.Sprintf("tweet_ids: %q is not a post id (1 to 20 digits)", id))
		}
	}
	return ids, nil
}

type removedView struct {
	Removed   string `json:"removed"`
	Count     int    `json:"count"`
	MaxTweets int    `json:"max_tweets"`
}

// removeTarget is DELETE /v1/et/targets/{tweet_id}: 404 if not tracked.
func (a *api) removeTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id := httpkit.PathValue(ctx, "tweet_id")
	d := &a.d
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err := d.Registry.Remove(cctx, p.AccountID, id)
	if errors.Is(err, watchlist.ErrNotWatched) {
		return 0, nil, protocol.NotFound("post not tracked")
	}
	if err != nil {
		return 0, nil, err
	}
	d.Detector.Unwatch(id)
	return 200, removedView{Removed: id, Count: d.Registry.Count(p.AccountID), MaxTweets: tweetLimit(p)}, nil
}

// engagementView is spec 3's engagement counts; before the first
// observation the counts are 0 and last_updated is null.
type engagementView struct {
	TweetID       string  `json:"tweet_id"`
	FavoriteCount int64   `json:"favorite_count"`
	RetweetCount  int64   `json:"retweet_count"`
	ReplyCount    int64   `json:"reply_count"`
	QuoteCount    int64   `json:"quote_count"`
	BookmarkCount int64   `json:"bookmark_count"`
	LastUpdated   *string `json:"last_updated"`
}

// engagement is GET /v1/et/engagement/{tweet_id}: 404 unless the account
// tracks the post.
func (a *api) engagement(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id := httpkit.PathValue(ctx, "tweet_id")
	d := &a.d
	if !d.Registry.Has(p.AccountID, id) {
		return 0, nil, protocol.NotFound("post not tracked")
	}
	st, known, err := d.Detector.Engagement(id)
	if err != nil {
		return 0, nil, err
	}
	v := engagementView{TweetID: id, FavoriteCount: st.FavoriteCount, RetweetCount: st.RetweetCount,
		ReplyCount: st.ReplyCount, QuoteCount: st.QuoteCount, BookmarkCount: st.BookmarkCount}
	if known {
		at := watchlist.ISOTime(st.UpdatedAt)
		v.LastUpdated = &at
	}
	return 200, v, nil
}

type statusView struct {
	TweetsTracked     int  `json:"tweets_tracked"`
	TweetLimit        int  `json:"tweet_limit"`
	WebhookConfigured bool `json:"webhook_configured"`
}

func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &a.d
	_, hook := d.Registry.Webhook(p.AccountID)
	return 200, statusView{TweetsTracked: d.Registry.Count(p.AccountID), TweetLimit: tweetLimit(p), WebhookConfigured: hook}, nil
}
