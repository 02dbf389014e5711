package b2b

import (
	"time"

	"github.com/alertd/alertd/actors/product/b2b"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// profileView is spec 2's profile snapshot. The fields the hosted service
// documents as always null or 0 stay so here too.
type profileView struct {
	SocialID         string    `json:"social_id"`
	ScreenName       string    `json:"screen_name"`
	DisplayName      string    `json:"display_name"`
	Bio              string    `json:"bio"`
	Location         *string   `json:"location"`
	Website          *string   `json:"website"`
	Followers        int64     `json:"followers"`
	Following        int64     `json:"following"`
	TweetCount       int64     `json:"tweet_count"`
	LikesCount       int64     `json:"likes_count"`
	ListedCount      int64     `json:"listed_count"`
	MediaCount       int64     `json:"media_count"`
	IsBlueVerified   bool      `json:"is_blue_verified"`
	VerifiedType     *string   `json:"verified_type"`
	AvatarURL        string    `json:"avatar_url"`
	BannerURL        *string   `json:"banner_url"`
	AccountCreatedAt *string   `json:"account_created_at"`
	ScrapedAt        time.Time `json:"scraped_at"`
}

// profile is GET /v1/dt/profile/{handle}: the latest user snapshot of the
// target's platform user; 404 until one exists (or while suspended).
func (a *api) profile(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	t, err := a.listedTarget(ctx, p, "")
	if err != nil {
		return 0, nil, err
	}
	e, ok := a.d.Dir.ByID(*t.SocialUserID)
	if !ok || e.User.Suspended {
		return 0, nil, protocol.NotFound("no profile data for @" + t.Handle + " yet")
	}
	u := e.User
	return 200, profileView{SocialID: u.ID, ScreenName: u.Display(), DisplayName: u.Name, Bio: u.Bio,
		Followers: u.Followers, Following: u.Following, IsBlueVerified: u.Verified, AvatarURL: u.Avatar,
		ScrapedAt: e.UpdatedAt.UTC()}, nil
}

type historyItemView struct {
	Followers   int64     `json:"followers"`
	Following   int64     `json:"following"`
	TweetCount  int64     `json:"tweet_count"`
	LikesCount  int64     `json:"likes_count"`
	ListedCount int64     `json:"listed_count"`
	ScrapedAt   time.Time `json:"scraped_at"`
}

type historyView struct {
	History []historyItemView `json:"history"`
	Count   int               `json:"count"`
}

// profileHistory is GET /v1/dt/profile/{handle}/history: one row per user
// snapshot whose counts changed, newest first.
func (a *api) profileHistory(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	t, err := a.listedTarget(ctx, p, protocol.ModuleProfileWatch)
	if err != nil {
		return 0, nil, err
	}
	limit, offset, err := httpkit.Page(ctx, 50, 200)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	rows, err := a.d.Store.ProfileHistory(cctx, *t.SocialUserID, limit, offset)
	if err != nil {
		return 0, nil, err
	}
	v := historyView{History: make([]historyItemView, 0, len(rows)), Count: len(rows)}
	for _, r := range rows {
		v.History = append(v.History, historyItemView{Followers: r.Followers, Following: r.Following, TweetCount: r.TweetCount,
			LikesCount: r.LikesCount, ListedCount: r.ListedCount, ScrapedAt: r.ScrapedAt})
	}
	return 200, v, nil
}

// recentTweetView is spec 2's recent tweet item (REST).
type recentTweetView struct {
	TweetID         string    `json:"tweet_id"`
	FullText        string    `json:"full_text"`
	CreatedAt       time.Time `json:"created_at"`
	Likes           int64     `json:"likes"`
	Retweets        int64     `json:"retweets"`
	Replies         int64     `json:"replies"`
	Quotes          int64     `json:"quotes"`
	Views           int64     `json:"views"`
	Bookmarks       int64     `json:"bookmarks"`
	IsRetweet       bool      `json:"is_retweet"`
	IsReply         bool      `json:"is_reply"`
	IsQuote         bool      `json:"is_quote"`
	ReplyToUsername *string   `json:"reply_to_username"`
	MediaURLs       []string  `json:"media_urls"`
	Mentions        []string  `json:"mentions"`
	Hashtags        []string  `json:"hashtags"`
	URLs            []string  `json:"urls"`
	Cashtags        []string  `json:"cashtags"`
}

type recentTweetsView struct {
	Tweets []recentTweetView `json:"tweets"`
	Count  int               `json:"count"`
}

// maxRecentTweets caps GET /v1/dt/tweets (spec 2 "Limits").
const maxRecentTweets = 20

// tweets is GET /v1/dt/tweets/{handle}: the last captured posts, newest
// first; `limit` may lower the cap of 20, nothing raises it.
func (a *api) tweets(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	t, err := a.listedTarget(ctx, p, "")
	if err != nil {
		return 0, nil, err
	}
	limit, err := httpkit.QueryInt(ctx, "limit", maxRecentTweets, 1)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	posts, err := a.d.Store.RecentPosts(cctx, a.dataHandle(t), min(limit, maxRecentTweets))
	if err != nil {
		return 0, nil, err
	}
	v := recentTweetsView{Tweets: make([]recentTweetView, 0, len(posts))}
	for _, post := range posts {
		var tw protocol.Tweet
		if err := json.Unmarshal(post.Data, &tw); err != nil {
			a.k.Log.Error("stored post unreadable", "id", post.ID, "err", err)
			continue
		}
		v.Tweets = append(v.Tweets, recentTweet(&tw))
	}
	v.Count = len(v.Tweets)
	return 200, v, nil
}

func recentTweet(t *protocol.Tweet) recentTweetView {
	m := t.Metrics
	v := recentTweetView{TweetID: t.ID, FullText: t.Text, CreatedAt: time.UnixMilli(t.CreatedAt).UTC(),
		Likes: orZero(m.Likes), Retweets: orZero(m.Retweets), Replies: orZero(m.Replies), Quotes: orZero(m.Quotes),
		Views: orZero(b2b.ViewCount(m.Views)), IsReply: t.Type == protocol.PostTypeReply, IsQuote: t.Type == protocol.PostTypeQuote,
		MediaURLs: mediaURLs(t.Media), Mentions: b2b.Mentions(t),
		Hashtags: []string{}, URLs: []string{}, Cashtags: []string{}}
	return v
}

func orZero(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func mediaURLs(media []protocol.Media) []string {
	out := make([]string, 0, len(media))
	for _, m := range media {
		out = append(out, m.URL)
	}
	return out
}
