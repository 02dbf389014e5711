package b2b

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/product/b2b"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// socialTweetView is spec 2's tweet lookup shape (bare, no envelope).
type socialTweetView struct {
	ID            string            `json:"id"`
	Text          string            `json:"text"`
	Media         []string          `json:"media"`
	CreatedAt     string            `json:"createdAt"`
	Type          string            `json:"type"`
	Author        socialTweetAuthor `json:"author"`
	LikeCount     *int64            `json:"likeCount"`
	RetweetCount  *int64            `json:"retweetCount"`
	ReplyCount    *int64            `json:"replyCount"`
	QuoteCount    *int64            `json:"quoteCount"`
	ViewCount     *int64            `json:"viewCount"`
	BookmarkCount *int64            `json:"bookmarkCount"`
}

type socialTweetAuthor struct {
	UserName       string `json:"userName"`
	Name           string `json:"name"`
	ProfilePicture string `json:"profilePicture"`
	Followers      int64  `json:"followers"`
	IsVerified     bool   `json:"isVerified"`
}

// tweetDateLayout is the platform's textual date ("Wed Oct 10 20:19:24 +0000 2018").
const tweetDateLayout = "Mon Jan 02 15:04:05 -0700 2006"

// socialTweet is GET /social/tweet/{tweetId}: a captured post with its
// current engagement counts; the author as the directory knows it now.
func (a *api) socialTweet(ctx *fasthttp.RequestCtx, _ *account.Principal) (int, any, error) {
	id := httpkit.PathValue(ctx, "tweetId")
	if !protocol.ValidNumericID(id) {
		return 0, nil, protocol.BadRequest("tweetId must be numeric")
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	post, err := a.d.Store.PostByID(cctx, id)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("tweet " + id + " not found")
	}
	if err != nil {
		return 0, nil, err
	}
	var tw protocol.Tweet
	if err := json.Unmarshal(post.Data, &tw); err != nil {
		return 0, nil, fmt.Errorf("stored post %s: %w", id, err)
	}
	var eng *persistence.LatestEngagement
	switch e, err := a.d.Store.LatestEngagement(cctx, id); {
	case err == nil:
		eng = &e
	case !errors.Is(err, persistence.ErrNotFound):
		return 0, nil, err
	}
	c := b2b.CurrentCounts(&tw, post.DetectedAt, eng)
	v := socialTweetView{ID: tw.ID, Text: tw.Text, Media: mediaURLs(tw.Media),
		CreatedAt: time.UnixMilli(tw.CreatedAt).UTC().Format(tweetDateLayout), Type: socialTweetType(tw.Type),
		Author: a.tweetAuthor(&tw.Author), LikeCount: c.Likes, RetweetCount: c.Retweets, ReplyCount: c.Replies,
		QuoteCount: c.Quotes, ViewCount: c.Views, BookmarkCount: c.Bookmarks}
	return 200, v, nil
}

// socialTweetType maps the payload type to the lookup's post, reply or
// quote; a repost is a post.
func socialTweetType(t string) string {
	switch t {
	case protocol.PostTypeReply, protocol.PostTypeQuote:
		return t
	}
	return protocol.PostTypePost
}

func (a *api) tweetAuthor(au *protocol.TweetAuthor) socialTweetAuthor {
	if e, ok := a.d.Dir.ByID(au.ID); ok {
		u := e.User
		return socialTweetAuthor{UserName: u.Display(), Name: u.Name, ProfilePicture: u.Avatar, Followers: u.Followers, IsVerified: u.Verified}
	}
	return socialTweetAuthor{UserName: au.Handle, Name: au.Name, ProfilePicture: au.Avatar, Followers: au.Stats.Followers,
		IsVerified: au.Verification.IsVerified}
}

type blacklistView struct {
	Status    string   `json:"status"`
	Blacklist []string `json:"blacklist"`
	Count     int      `json:"count"`
}

type socialStatusView struct {
	Status string `json:"status"`
	Msg    string `json:"msg"`
}

// socialBlacklist is GET /social/blacklist: the caller's exclusion list.
func (a *api) socialBlacklist(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	list, err := a.d.Store.DTBlacklist(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	if list == nil {
		list = []string{}
	}
	return 200, blacklistView{Status: "success", Blacklist: list, Count: len(list)}, nil
}

func blacklistHandle(ctx *fasthttp.RequestCtx) (string, error) {
	h := protocol.NormalizeHandle(httpkit.PathValue(ctx, "username"))
	if !protocol.ValidHandle(h) {
		return "", protocol.BadRequest("username must be 1 to 50 letters, digits or underscores")
	}
	return h, nil
}

// MaxBlacklist bounds an account's blacklist (ours: spec 2 shows no limit;
// the largest B2B handle ceiling). Two adds racing at the limit may both
// pass, so the list can end one or two over; it never grows past that.
const MaxBlacklist = 1000

// socialBlacklistAdd is POST /social/blacklist/{username}; idempotent. It
// only stores the handle: no feed filters by it. A full list refuses a new
// handle with 403.
func (a *api) socialBlacklistAdd(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := blacklistHandle(ctx)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	list, err := a.d.Store.DTBlacklist(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	if len(list) >= MaxBlacklist && !slices.Contains(list, h) {
		return 0, nil, protocol.Forbidden(fmt.Sprintf("your blacklist is full (%d handles); remove one first", MaxBlacklist))
	}
	added, err := a.d.Store.AddDTBlacklist(cctx, p.AccountID, h, a.k.Now().UTC())
	if err != nil {
		return 0, nil, err
	}
	msg := "@" + h + " added to your blacklist"
	if !added {
		msg = "@" + h + " is already on your blacklist"
	}
	return 200, socialStatusView{Status: "success", Msg: msg}, nil
}

// socialBlacklistRemove is DELETE /social/blacklist/{username}; 404 when the
// handle is not on the list.
func (a *api) socialBlacklistRemove(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := blacklistHandle(ctx)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err = a.d.Store.RemoveDTBlacklist(cctx, p.AccountID, h)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("@" + h + " is not on your blacklist")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, socialStatusView{Status: "success", Msg: "@" + h + " removed from your blacklist"}, nil
}

type catalogItemView struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	MemberCount int64   `json:"memberCount"`
	Image       *string `json:"image"`
}

// catalogView wraps the catalog like the blacklist: status, the list, count.
type catalogView struct {
	Status      string            `json:"status"`
	Communities []catalogItemView `json:"communities"`
	Count       int               `json:"count"`
}

// maxCatalogSearch bounds the search text.
const maxCatalogSearch = 200

// socialCommunities is GET /social/communities: the communities seen in any
// membership snapshot whose name contains `search`, largest first.
func (a *api) socialCommunities(ctx *fasthttp.RequestCtx, _ *account.Principal) (int, any, error) {
	limit, offset, err := httpkit.Page(ctx, 50, 200)
	if err != nil {
		return 0, nil, err
	}
	search := strings.TrimSpace(string(ctx.QueryArgs().Peek("search")))
	if len(search) > maxCatalogSearch {
		return 0, nil, protocol.BadRequest(fmt.Sprintf("search must be at most %d bytes", maxCatalogSearch))
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	list, err := a.d.Store.CommunityCatalog(cctx, search, limit, offset)
	if err != nil {
		return 0, nil, err
	}
	v := catalogView{Status: "success", Communities: make([]catalogItemView, 0, len(list)), Count: len(list)}
	for _, c := range list {
		v.Communities = append(v.Communities, catalogItemView{ID: c.ID, Name: c.Name, Description: c.Description, MemberCount: c.MemberCount})
	}
	return 200, v, nil
}

type socialUserView struct {
	UserName       string `json:"userName"`
	Name           string `json:"name"`
	ID             string `json:"id"`
	ProfilePicture string `json:"profilePicture"`
	Followers      int64  `json:"followers"`
	Following      int64  `json:"following"`
	IsVerified     bool   `json:"isVerified"`
	Description    string `json:"description"`
}

func (a *api) socialUser(ctx *fasthttp.RequestCtx, _ *account.Principal) (int, any, error) {
	h := protocol.NormalizeHandle(httpkit.PathValue(ctx, "username"))
	e, ok := a.d.Dir.ByHandle(h)
	if !ok {
		return 0, nil, protocol.NotFound("no data for user " + h)
	}
	u := e.User
	return 200, socialUserView{UserName: u.Display(), Name: u.Name, ID: u.ID, ProfilePicture: u.Avatar,
		Followers: u.Followers, Following: u.Following, IsVerified: u.Verified, Description: u.Bio}, nil
}
