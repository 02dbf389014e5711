package xapi

import (
	"github.com/alertd/alertd/upstream/xapi/xapifake"
)

// The fixture world: documented object shapes with every field the tweet
// payload reads filled in.
var (
	whale = xapifake.User{ID: "744628103955443712", Username: "SolWhale", Name: "Sol Whale", Description: "on-chain since 2017",
		ProfileImageURL: "https://pbs.twimg.com/profile_images/1/whale_normal.jpg", ProfileBannerURL: "https://pbs.twimg.com/profile_banners/1/1",
		Location: "Lisbon", URL: "https://t.co/abc", Verified: true, VerifiedType: "blue", PinnedTweetID: "1859990001112223334",
		PublicMetrics: xapifake.UserMetrics{FollowersCount: 48210, FollowingCount: 311, TweetCount: 9000},
		Affiliation:   []byte(`{"description":"Solana Labs","url":"https://x.com/solanalabs","badge_url":"https://pbs.twimg.com/b.jpg","user_id":["1"]}`),
		Entities:      &xapifake.UserEntities{}, FollowingIDs: []string{"1111", "2222"}}
	mike = xapifake.User{ID: "1111", Username: "degenmike", Name: "Degen Mike", Description: "ngmi",
		ProfileImageURL: "https://pbs.twimg.com/profile_images/2/mike_normal.jpg", VerifiedType: "none",
		PublicMetrics: xapifake.UserMetrics{FollowersCount: 900, FollowingCount: 120}}
	queen = xapifake.User{ID: "2222", Username: "chartqueen", Name: "Chart Queen", VerifiedType: "business", Verified: true,
		ProfileImageURL: "https://pbs.twimg.com/profile_images/3/q_normal.jpg", PublicMetrics: xapifake.UserMetrics{FollowersCount: 5, FollowingCount: 7}}

	photo = xapifake.Media{MediaKey: "3_1", Type: "photo", URL: "https://pbs.twimg.com/media/a.jpg", Width: 1200, Height: 800}
	video = xapifake.Media{MediaKey: "7_2", Type: "video", PreviewImageURL: "https://pbs.twimg.com/ext_tw_video_thumb/2/pu/img/b.jpg"}

	// parent is mike's post that the others reply to, quote or repost.
	parent = xapifake.Post{ID: "1859999999999999000", Text: "charts look good $SOL #solana", AuthorID: mike.ID,
		CreatedAt: "2026-11-21T07:59:00.000Z", ConversationID: "1859999999999999000", EditHistoryTweetIDs: []string{"1859999999999999000"},
		Attachments: &xapifake.Attachments{MediaKeys: []string{video.MediaKey}},
		Entities: &xapifake.Entities{Cashtags: []xapifake.TagEntity{{Start: 17, End: 21, Tag: "SOL"}},
			Hashtags: []xapifake.TagEntity{{Start: 22, End: 29, Tag: "solana"}}}}
)

func seed(f *xapifake.Server) {
	f.AddUser(whale)
	f.AddUser(mike)
	f.AddUser(queen)
	f.AddMedia(photo)
	f.AddMedia(video)
	f.AddPost(parent)
}

// original is whale's plain post with every field set.
func original() xapifake.Post {
	text := "new launch $WIF2 CA: 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU #memes @chartqueen https://t.co/xyz"
	return xapifake.Post{ID: "1860000000000000001", Text: text, AuthorID: whale.ID, CreatedAt: "2026-11-21T08:00:00.123Z",
		ConversationID: "1860000000000000001", EditHistoryTweetIDs: []string{"1860000000000000001"}, PossiblySensitive: true, Lang: "en",
		Attachments: &xapifake.Attachments{MediaKeys: []string{photo.MediaKey, video.MediaKey}},
		Entities: &xapifake.Entities{
			Cashtags: []xapifake.TagEntity{{Start: 11, End: 16, Tag: "WIF2"}},
			Hashtags: []xapifake.TagEntity{{Start: 66, End: 72, Tag: "memes"}},
			Mentions: []xapifake.MentionEntity{{Start: 73, End: 84, Username: "chartqueen", ID: queen.ID}},
			URLs:     []xapifake.URLEntity{{Start: 85, End: 101, URL: "https://t.co/xyz", ExpandedURL: "https://pump.fun/coin/7xKX", DisplayURL: "pump.fun/coin/7xKX"}},
		},
		PublicMetrics: &xapifake.PostMetrics{LikeCount: 3, RetweetCount: 1, ReplyCount: 2, QuoteCount: 4, BookmarkCount: 5, ImpressionCount: 60}}
}
