package protocol

import (
	"fmt"
	"math"
	"strings"
)

// A handle has two forms. Its spelling, as the platform sent it
// (`ElonMusk`), is what payloads carry. Its key, the spelling lowercased
// (`elonmusk`), is what the engine matches, routes, stores and looks up by:
// the platform's handles are case-insensitive, so two spellings of one key
// are one account.

// HandleSpelling strips surrounding spaces and one leading '@', keeping the
// case: the form payloads carry. It does not validate.
func HandleSpelling(h string) string {
	return strings.TrimPrefix(strings.TrimSpace(h), "@")
}

// NormalizeHandle is a handle's key: its spelling lowercased, the form every
// match, route, storage lookup and target list entry uses. It does not
// validate.
func NormalizeHandle(h string) string {
	return strings.ToLower(HandleSpelling(h))
}

// ValidHandle reports whether h (normalized) is a platform handle: 1 to 50
// letters, digits or underscores.
func ValidHandle(h string) bool {
	if len(h) == 0 || len(h) > 50 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ValidNumericID reports whether s is a non-empty run of decimal digits of at
// most 20 characters (platform ids are 64-bit).
func ValidNumericID(s string) bool {
	if len(s) == 0 || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func missing(field string) error { return fmt.Errorf("missing field: %s", field) }

func invalid(field, why string) error { return fmt.Errorf("invalid field %s: %s", field, why) }

// handleKey validates handle *h, makes it the key form and the routing key,
// and returns the platform's spelling of it.
func handleKey(h *string, field string, o *Observation) (spelling string, err error) {
	if *h == "" {
		return "", missing(field)
	}
	spelling = HandleSpelling(*h)
	key := NormalizeHandle(spelling)
	if !ValidHandle(key) {
		return "", invalid(field, "not a handle")
	}
	*h, o.Key = key, key
	return spelling, nil
}

func nonNegative(field string, vals ...int64) error {
	for _, v := range vals {
		if v < 0 {
			return invalid(field, "negative count")
		}
	}
	return nil
}

func finiteNonNegative(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return invalid(field, "must be a non-negative number")
	}
	return nil
}

var verificationTypes = map[string]bool{"blue": true, "business": true, "government": true}

func (u *UserObs) validate(o *Observation) error {
	if !ValidNumericID(u.ID) {
		return invalid("id", "numeric id required")
	}
	sp, err := handleKey(&u.Handle, "handle", o)
	if err != nil {
		return err
	}
	u.Spelling = sp
	if u.VerificationType != nil && !verificationTypes[*u.VerificationType] {
		return invalid("verification_type", "one of blue, business, government or null")
	}
	for i, c := range u.Categories {
		u.Categories[i] = NormalizeCategory(c)
	}
	return nonNegative("followers", u.Followers, u.Following)
}

// NormalizeCategory folds case and spaces: "Perp Coins" becomes "perp_coins".
func NormalizeCategory(c string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(c)), " ", "_")
}

var postTypes = map[string]bool{PostTypePost: true, PostTypeReply: true, PostTypeQuote: true, PostTypeRepost: true}

func validatePost(t *Tweet, o *Observation) error {
	if !ValidNumericID(t.ID) {
		return invalid("id", "numeric id required")
	}
	if t.CreatedAt <= 0 {
		return missing("created_at")
	}
	if !postTypes[t.Type] {
		return invalid("type", "one of post, reply, quote, repost")
	}
	if t.Author.ID == "" {
		return missing("author.id")
	}
	sp, err := handleKey(&t.Author.Handle, "author.handle", o)
	if err != nil {
		return err
	}
	t.Author.Handle = sp // the payload's author keeps the platform's spelling; o.Key is the key
	if t.Author.Verification.Type != nil && !verificationTypes[*t.Author.Verification.Type] {
		return invalid("author.verification.type", "one of blue, business, government or null")
	}
	if err := photosOnly(t.Media, "media.url"); err != nil {
		return err
	}
	if t.InReplyTo != nil && t.InReplyTo.TweetID == "" {
		return missing("in_reply_to.tweet_id")
	}
	if t.QuotedTweet != nil && t.QuotedTweet.ID == "" {
		return missing("quoted_tweet.id")
	}
	if t.QuotedTweet != nil {
		_ = photosOnly(t.QuotedTweet.Media, "") // quoted media URLs were never required
	}
	if t.ConversationID == "" {
		t.ConversationID = t.ID
	}
	return nil
}

// photosOnly checks media URLs (field "": no check) and sets every type to photo: spec 2's
// payload has `type` always photo, a video being shown by its preview image
// (the URL an upstream gives for it; the connectors send the preview).
func photosOnly(media []Media, field string) error {
	for i := range media {
		if field != "" && media[i].URL == "" {
			return missing(field)
		}
		media[i].Type = MediaPhoto
	}
	return nil
}

func (d *PostDeletedObs) validate(o *Observation) error {
	if d.TweetID != nil && !ValidNumericID(*d.TweetID) {
		return invalid("tweet_id", "numeric id or null")
	}
	_, err := handleKey(&d.Handle, "handle", o)
	return err
}

func (f *FollowingObs) validate(o *Observation) error {
	if _, err := handleKey(&f.Handle, "handle", o); err != nil {
		return err
	}
	if f.Users == nil {
		return missing("users")
	}
	for i := range f.Users {
		u := &f.Users[i]
		if u.ID == "" {
			return missing(fmt.Sprintf("users[%d].id", i))
		}
		u.Handle = HandleSpelling(u.Handle) // payloads show it; diffs compare keys
	}
	return nil
}

func (f *FollowersNewObs) validate(o *Observation) error {
	if _, err := handleKey(&f.Handle, "handle", o); err != nil {
		return err
	}
	if f.Users == nil {
		return missing("users")
	}
	for i := range f.Users {
		u := &f.Users[i]
		if u.ID == "" {
			return missing(fmt.Sprintf("users[%d].id", i))
		}
		u.Handle = HandleSpelling(u.Handle) // payloads show it; diffs compare keys
	}
	return nil
}

func (c *CommunitiesObs) validate(o *Observation) error {
	if _, err := handleKey(&c.Handle, "handle", o); err != nil {
		return err
	}
	if c.Communities == nil {
		return missing("communities")
	}
	for i, m := range c.Communities {
		if m.ID == "" {
			return missing(fmt.Sprintf("communities[%d].id", i))
		}
		if m.MemberCount < 0 {
			return invalid(fmt.Sprintf("communities[%d].member_count", i), "negative count")
		}
	}
	return nil
}

func (e *EngagementObs) validate(o *Observation) error {
	if !ValidNumericID(e.TweetID) {
		return invalid("tweet_id", "numeric id required")
	}
	o.Key = "tweet:" + e.TweetID
	return nonNegative("counts", e.FavoriteCount, e.RetweetCount, e.ReplyCount, e.QuoteCount, e.BookmarkCount)
}

func (t *TrendingObs) validate(o *Observation) error {
	if t.Category == "" {
		return missing("category")
	}
	t.Category = NormalizeCategory(t.Category)
	if t.Tweet.TweetID == "" {
		return missing("tweet.tweet_id")
	}
	o.Key = "trend:" + t.Category
	return nil
}

var launchTypes = map[string]bool{LaunchTokenLaunched: true, LaunchLivestreamStarted: true, LaunchLivestreamEnded: true, LaunchGraduated: true}

func (l *LaunchpadObs) validate(o *Observation) error {
	if !launchTypes[l.EventType] {
		return invalid("event_type", "one of token_launched, livestream_started, livestream_ended, graduated")
	}
	if l.Mint == "" {
		return missing("mint")
	}
	if l.WalletAddress == "" {
		return missing("wallet_address")
	}
	o.Key = "mint:" + l.Mint
	return finiteNonNegative("market_cap", l.MarketCap)
}

func (c *CalloutObs) validate(o *Observation) error {
	if c.CallerWallet == "" {
		return missing("caller_wallet")
	}
	if c.Mint == "" {
		return missing("mint")
	}
	o.Key = "mint:" + c.Mint
	if err := finiteNonNegative("callout_mcap", c.CalloutMcap); err != nil {
		return err
	}
	return finiteNonNegative("market_cap", c.MarketCap)
}

func (m *MarketCapObs) validate(o *Observation) error {
	if m.Mint == "" {
		return missing("mint")
	}
	o.Key = "mint:" + m.Mint
	return finiteNonNegative("market_cap", m.MarketCap)
}
