package edge

import (
	"errors"
	"fmt"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// etRoutes are the Engagement Tracker's routes (spec 3).
func (s *Server) etRoutes(r *router.Router) {
	f := ProductFamily(protocol.ProductET)
	d := &s.deps.Products
	r.GET("/v1/et/targets", s.wrap(f, s.etListTargets))
	r.POST("/v1/et/targets", s.wrap(f, s.etAddTargets))
	r.DELETE("/v1/et/targets/{tweet_id}", s.wrap(f, s.etRemoveTarget))
	r.GET("/v1/et/engagement/{tweet_id}", s.wrap(f, s.etEngagement))
	r.GET("/v1/et/status", s.wrap(f, s.etStatus))
	s.watchWebhookRoutes(r, protocol.ProductET, d.ET)
	if s.ws != nil {
		r.GET("/v1/et/ws", s.productSocket(protocol.ProductET, accountScope(protocol.ProductET, d.ET.Names)))
	}
}

// tweetLimit is an et plan's ceiling (CONTRACT.md: default 25).
func tweetLimit(p *account.Principal) int {
	if p.Sub.MaxTweets > 0 {
		return p.Sub.MaxTweets
	}
	return protocol.TweetPlanSizes[0]
}

type etTargetView struct {
	TweetID string `json:"tweet_id"`
	AddedAt string `json:"added_at"`
}

type etTargetListView struct {
	TweetIDs  []string       `json:"tweet_ids"`
	Targets   []etTargetView `json:"targets"`
	Count     int            `json:"count"`
	MaxTweets int            `json:"max_tweets"`
}

func (s *Server) etListTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	items := s.deps.Products.ET.Items(p.AccountID)
	v := etTargetListView{TweetIDs: make([]string, 0, len(items)), Targets: make([]etTargetView, 0, len(items)),
		Count: len(items), MaxTweets: tweetLimit(p)}
	for _, it := range items {
		v.TweetIDs = append(v.TweetIDs, it.Name)
		v.Targets = append(v.Targets, etTargetView{TweetID: it.Name, AddedAt: watchISO(it.AddedAt)})
	}
	return 200, v, nil
}

type etAddedView struct {
	Added          []string `json:"added"`
	AlreadyTracked []string `json:"already_tracked"`
	Count          int      `json:"count"`
	MaxTweets      int      `json:"max_tweets"`
}

// etAddTargets is POST /v1/et/targets: `tweet_ids`, a non-empty array of
// post ids. All or none: 403 forbidden when the new ids do not fit in the
// plan, and nothing is added.
func (s *Server) etAddTargets(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	ids, err := etTweetIDs(m)
	if err != nil {
		return 0, nil, err
	}
	d := &s.deps.Products
	max := tweetLimit(p)
	cctx, cancel := watchCtx()
	defer cancel()
	added, existing, err := d.ET.AddMany(cctx, p.AccountID, ids, func(string) struct{} { return struct{}{} }, max)
	if errors.Is(err, watchlist.ErrLimit) {
		have := d.ET.Count(p.AccountID)
		return 0, nil, protocol.Forbidden(fmt.Sprintf("tweet limit reached: %d tracked, plan allows %d", have, max)).
			WithHint("remove posts with DELETE /v1/et/targets/{tweet_id}, or upgrade your plan")
	}
	if err != nil {
		return 0, nil, err
	}
	v := etAddedView{Added: make([]string, 0, len(added)), AlreadyTracked: existing, Count: d.ET.Count(p.AccountID), MaxTweets: max}
	for _, it := range added {
		v.Added = append(v.Added, it.Name)
	}
	if v.AlreadyTracked == nil {
		v.AlreadyTracked = []string{}
	}
	return 201, v, nil
}

// etTweetIDs reads `tweet_ids`: 422 when absent, 400 unless a non-empty
// array of post ids (1 to 20 digits).
func etTweetIDs(m map[string]json.RawMessage) ([]string, error) {
	raw, ok := m["tweet_ids"]
	if !ok {
		return nil, errMissingField("tweet_ids")
	}
	var ids []string
	if isNull(raw) || json.Unmarshal(raw, &ids) != nil {
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

type etRemovedView struct {
	Removed   string `json:"removed"`
	Count     int    `json:"count"`
	MaxTweets int    `json:"max_tweets"`
}

// etRemoveTarget is DELETE /v1/et/targets/{tweet_id}: 404 if not tracked.
func (s *Server) etRemoveTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id := pathValue(ctx, "tweet_id")
	d := &s.deps.Products
	cctx, cancel := watchCtx()
	defer cancel()
	err := d.ET.Remove(cctx, p.AccountID, id)
	if errors.Is(err, watchlist.ErrNotWatched) {
		return 0, nil, protocol.NotFound("post not tracked")
	}
	if err != nil {
		return 0, nil, err
	}
	d.ETDetector.Unwatch(id)
	return 200, etRemovedView{Removed: id, Count: d.ET.Count(p.AccountID), MaxTweets: tweetLimit(p)}, nil
}

// etEngagementView is spec 3's engagement counts; before the first
// observation the counts are 0 and last_updated is null.
type etEngagementView struct {
	TweetID       string  `json:"tweet_id"`
	FavoriteCount int64   `json:"favorite_count"`
	RetweetCount  int64   `json:"retweet_count"`
	ReplyCount    int64   `json:"reply_count"`
	QuoteCount    int64   `json:"quote_count"`
	BookmarkCount int64   `json:"bookmark_count"`
	LastUpdated   *string `json:"last_updated"`
}

// etEngagement is GET /v1/et/engagement/{tweet_id}: 404 unless the account
// tracks the post.
func (s *Server) etEngagement(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id := pathValue(ctx, "tweet_id")
	d := &s.deps.Products
	if !d.ET.Has(p.AccountID, id) {
		return 0, nil, protocol.NotFound("post not tracked")
	}
	st, known, err := d.ETDetector.Engagement(id)
	if err != nil {
		return 0, nil, err
	}
	v := etEngagementView{TweetID: id, FavoriteCount: st.FavoriteCount, RetweetCount: st.RetweetCount,
		ReplyCount: st.ReplyCount, QuoteCount: st.QuoteCount, BookmarkCount: st.BookmarkCount}
	if known {
		at := watchlist.ISOTime(st.UpdatedAt)
		v.LastUpdated = &at
	}
	return 200, v, nil
}

type etStatusView struct {
	TweetsTracked     int  `json:"tweets_tracked"`
	TweetLimit        int  `json:"tweet_limit"`
	WebhookConfigured bool `json:"webhook_configured"`
}

func (s *Server) etStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &s.deps.Products
	_, hook := d.ET.Webhook(p.AccountID)
	return 200, etStatusView{TweetsTracked: d.ET.Count(p.AccountID), TweetLimit: tweetLimit(p), WebhookConfigured: hook}, nil
}
