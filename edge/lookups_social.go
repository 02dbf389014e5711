package edge

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/product/b2b"
	"github.com/alertd/alertd/actors/state/account"
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
func (s *Server) socialTweet(ctx *fasthttp.RequestCtx, _ *account.Principal) (int, any, error) {
	id := pathValue(ctx, "tweetId")
	if !protocol.ValidNumericID(id) {
		return 0, nil, protocol.BadRequest("tweetId must be numeric")
	}
	cctx, cancel := lookupCtx()
	defer cancel()
	post, err := s.deps.Store.PostByID(cctx, id)
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
	switch e, err := s.deps.Lookups.Store.LatestEngagement(cctx, id); {
	case err == nil:
		eng = &e
	case !errors.Is(err, persistence.ErrNotFound):
		return 0, nil, err
	}
	c := b2b.CurrentCounts(&tw, post.DetectedAt, eng)
	v := socialTweetView{ID: tw.ID, Text: tw.Text, Media: lkMediaURLs(tw.Media),
		CreatedAt: time.UnixMilli(tw.CreatedAt).UTC().Format(tweetDateLayout), Type: lkSocialTweetType(tw.Type),
		Author: s.tweetAuthor(&tw.Author), LikeCount: c.Likes, RetweetCount: c.Retweets, ReplyCount: c.Replies,
		QuoteCount: c.Quotes, ViewCount: c.Views, BookmarkCount: c.Bookmarks}
	return 200, v, nil
}

// socialTweetType maps the payload type to the lookup's post, reply or
// quote; a repost is a post.
func lkSocialTweetType(t string) string {
	switch t {
	case protocol.PostTypeReply, protocol.PostTypeQuote:
		return t
	}
	return protocol.PostTypePost
}

func (s *Server) tweetAuthor(a *protocol.TweetAuthor) socialTweetAuthor {
	if e, ok := s.deps.Dir.ByID(a.ID); ok {
		u := e.User
		return socialTweetAuthor{UserName: u.Handle, Name: u.Name, ProfilePicture: u.Avatar, Followers: u.Followers, IsVerified: u.Verified}
	}
	return socialTweetAuthor{UserName: a.Handle, Name: a.Name, ProfilePicture: a.Avatar, Followers: a.Stats.Followers,
		IsVerified: a.Verification.IsVerified}
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
func (s *Server) socialBlacklist(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := lookupCtx()
	defer cancel()
	list, err := s.deps.Lookups.Store.DTBlacklist(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	if list == nil {
		list = []string{}
	}
	return 200, blacklistView{Status: "success", Blacklist: list, Count: len(list)}, nil
}

func lkBlacklistHandle(ctx *fasthttp.RequestCtx) (string, error) {
	h := protocol.NormalizeHandle(pathValue(ctx, "username"))
	if !protocol.ValidHandle(h) {
		return "", protocol.BadRequest("username must be 1 to 50 letters, digits or underscores")
	}
	return h, nil
}

// socialBlacklistAdd is POST /social/blacklist/{username}; idempotent. It
// only stores the handle: no feed filters by it.
func (s *Server) socialBlacklistAdd(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := lkBlacklistHandle(ctx)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := lookupCtx()
	defer cancel()
	added, err := s.deps.Lookups.Store.AddDTBlacklist(cctx, p.AccountID, h, s.now().UTC())
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
func (s *Server) socialBlacklistRemove(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := lkBlacklistHandle(ctx)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := lookupCtx()
	defer cancel()
	err = s.deps.Lookups.Store.RemoveDTBlacklist(cctx, p.AccountID, h)
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
func (s *Server) socialCommunities(ctx *fasthttp.RequestCtx, _ *account.Principal) (int, any, error) {
	limit, offset, err := lookupPage(ctx, 50, 200)
	if err != nil {
		return 0, nil, err
	}
	search := strings.TrimSpace(string(ctx.QueryArgs().Peek("search")))
	if len(search) > maxCatalogSearch {
		return 0, nil, protocol.BadRequest(fmt.Sprintf("search must be at most %d bytes", maxCatalogSearch))
	}
	cctx, cancel := lookupCtx()
	defer cancel()
	list, err := s.deps.Lookups.Store.CommunityCatalog(cctx, search, limit, offset)
	if err != nil {
		return 0, nil, err
	}
	v := catalogView{Status: "success", Communities: make([]catalogItemView, 0, len(list)), Count: len(list)}
	for _, c := range list {
		v.Communities = append(v.Communities, catalogItemView{ID: c.ID, Name: c.Name, Description: c.Description, MemberCount: c.MemberCount})
	}
	return 200, v, nil
}
