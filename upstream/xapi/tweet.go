package xapi

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
	json "github.com/goccy/go-json"
)

// streamQuery asks the filtered stream for everything spec 2's tweet payload
// carries: the author with picture, verification and counts; media with
// preview images; the referenced posts (replies, quotes, reposts) and their
// authors; entities, metrics, conversation id and possibly_sensitive.
const streamQuery = "expansions=author_id,attachments.media_keys,referenced_tweets.id,referenced_tweets.id.author_id,in_reply_to_user_id,entities.mentions.username" +
	"&tweet.fields=created_at,author_id,conversation_id,in_reply_to_user_id,referenced_tweets,attachments,entities,public_metrics,possibly_sensitive,note_tweet" +
	"&user.fields=username,name,profile_image_url,description,verified,verified_type,public_metrics,affiliation" +
	"&media.fields=type,url,preview_image_url"

// Errors of DecodePost.
var (
	ErrNoPost       = errors.New("xapi: line carries no post")
	errNoAuthor     = errors.New("xapi: post author missing from includes or without a username")
	errBadCreatedAt = errors.New("xapi: bad created_at")
)

// DecodePost turns one line of the filtered stream into a `post` ingest line
// (CONTRACT.md section 3: exactly spec 2's tweet payload) and the post's
// creation time in epoch ms. A keep-alive or a line without a post gives
// ErrNoPost; anything that is not a well-formed post gives another error.
func DecodePost(line []byte) (obs []byte, createdAt int64, err error) {
	var sl streamLine
	if err := decodeLine(line, &sl); err != nil {
		return nil, 0, err
	}
	if sl.Data == nil {
		return nil, 0, ErrNoPost
	}
	return encodePost(sl.Data, &sl.Includes)
}

// decodeLine parses a stream line; blank lines (keep-alives) are ErrNoPost.
func decodeLine(line []byte, sl *streamLine) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return ErrNoPost
	}
	if err := json.Unmarshal(line, sl); err != nil {
		return fmt.Errorf("xapi: invalid stream line: %w", err)
	}
	return nil
}

func encodePost(t *apiTweet, inc *apiIncludes) ([]byte, int64, error) {
	tw, err := toTweet(t, inc)
	if err != nil {
		return nil, 0, err
	}
	b, err := upstream.Encode(protocol.KindPost, &tw)
	return b, tw.CreatedAt, err
}

// toTweet maps a Post and its includes to the tweet payload.
func toTweet(t *apiTweet, inc *apiIncludes) (protocol.Tweet, error) {
	if !protocol.ValidNumericID(t.ID) {
		return protocol.Tweet{}, fmt.Errorf("xapi: bad post id %q", t.ID)
	}
	created, err := parseTime(t.CreatedAt)
	if err != nil {
		return protocol.Tweet{}, err
	}
	au := inc.user(t.AuthorID)
	if au == nil || !protocol.ValidHandle(strings.ToLower(au.Username)) {
		return protocol.Tweet{}, errNoAuthor
	}
	tw := protocol.Tweet{
		ID:                t.ID,
		CreatedAt:         created,
		Type:              protocol.PostTypePost,
		Author:            author(au),
		PossiblySensitive: t.PossiblySensitive,
		ConversationID:    t.ConversationID,
		Metrics:           metrics(t.PublicMetrics),
		Media:             inc.media(t.Attachments.MediaKeys),
	}
	text, ents := t.fullText()
	var repliedTo, quoted, retweeted string
	for _, r := range t.ReferencedTweets {
		switch r.Type {
		case refRepliedTo:
			repliedTo = r.ID
		case refQuoted:
			quoted = r.ID
		case refRetweeted:
			retweeted = r.ID
		}
	}
	switch {
	case retweeted != "":
		// A repost's own text is "RT @author: " and a truncated copy; the
		// original in includes has the whole text, entities and media.
		tw.Type = protocol.PostTypeRepost
		if orig := inc.tweet(retweeted); orig != nil {
			if oa := inc.user(orig.AuthorID); oa != nil {
				otext, oents := orig.fullText()
				prefix := "RT @" + oa.Username + ": "
				text = prefix + otext
				ents = oents.shifted(len(prefix)) // the prefix is ASCII: bytes, runes and UTF-16 units agree
				ents.Mentions = append([]apiMention{{Start: 3, End: 4 + len(oa.Username), Username: oa.Username, ID: oa.ID}}, ents.Mentions...)
				tw.Media = inc.media(orig.Attachments.MediaKeys)
			}
			tw.QuotedTweet = inc.quoted(orig)
		}
	case repliedTo != "":
		tw.Type = protocol.PostTypeReply
		tw.InReplyTo = &protocol.InReplyTo{TweetID: repliedTo}
		parent := inc.tweet(repliedTo)
		if u := inc.user(t.InReplyToUserID); u != nil {
			tw.InReplyTo.User = strings.ToLower(u.Username)
		} else if parent != nil {
			if u := inc.user(parent.AuthorID); u != nil {
				tw.InReplyTo.User = strings.ToLower(u.Username)
			}
		}
		if parent != nil { // spec 2: on replies quoted_tweet carries the parent
			tw.QuotedTweet = inc.quoted(parent)
		}
	case quoted != "":
		tw.Type = protocol.PostTypeQuote
		if q := inc.tweet(quoted); q != nil {
			tw.QuotedTweet = inc.quoted(q)
		} else {
			tw.QuotedTweet = &protocol.QuotedTweet{ID: quoted} // shipped without context, as spec 2 allows
		}
	}
	tw.Text = text
	tw.Cashtags = make([]string, 0, len(ents.Cashtags))
	tw.Entities.Symbols = make([]protocol.Symbol, 0, len(ents.Cashtags))
	for _, c := range ents.Cashtags {
		tw.Cashtags = append(tw.Cashtags, c.Tag)
		tw.Entities.Symbols = append(tw.Entities.Symbols, protocol.Symbol{Text: c.Tag, Indices: []int{c.Start, c.End}})
	}
	tw.Mentions = make([]string, 0, len(ents.Mentions))
	for _, m := range ents.Mentions {
		tw.Mentions = append(tw.Mentions, strings.ToLower(m.Username))
	}
	tw.Entities.Hashtags, tw.Entities.URLs = ents.hashtagsJSON(), ents.urlsJSON()
	return tw, nil
}

// fullText is the post's whole text: a note tweet's when it is longer than
// the classic 280 characters.
func (t *apiTweet) fullText() (string, apiEntities) {
	if t.NoteTweet != nil && t.NoteTweet.Text != "" {
		return t.NoteTweet.Text, t.NoteTweet.Entities
	}
	return t.Text, t.Entities
}

func parseTime(s string) (int64, error) {
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || ts.UnixMilli() <= 0 {
		return 0, errBadCreatedAt
	}
	return ts.UnixMilli(), nil
}

func (inc *apiIncludes) user(id string) *apiUser {
	if id == "" {
		return nil
	}
	for i := range inc.Users {
		if inc.Users[i].ID == id {
			return &inc.Users[i]
		}
	}
	return nil
}

func (inc *apiIncludes) tweet(id string) *apiTweet {
	for i := range inc.Tweets {
		if inc.Tweets[i].ID == id {
			return &inc.Tweets[i]
		}
	}
	return nil
}

// media lists the pictures of keys: a photo's url, a video's or GIF's
// preview image (spec 2: type is always photo).
func (inc *apiIncludes) media(keys []string) []protocol.Media {
	out := make([]protocol.Media, 0, len(keys))
	for _, k := range keys {
		for i := range inc.Media {
			m := &inc.Media[i]
			if m.MediaKey != k {
				continue
			}
			u := m.URL
			if m.Type != "photo" || u == "" {
				u = m.PreviewImageURL
			}
			if u != "" {
				out = append(out, protocol.Media{Type: "photo", URL: u})
			}
			break
		}
	}
	return out
}

// quoted is the short form of a referenced post; its author may be missing
// from includes (a protected or deleted account), then only the id and text
// are known.
func (inc *apiIncludes) quoted(t *apiTweet) *protocol.QuotedTweet {
	text, _ := t.fullText()
	q := &protocol.QuotedTweet{ID: t.ID, Text: text}
	if u := inc.user(t.AuthorID); u != nil {
		name := u.Name
		q.Author = protocol.QuotedAuthor{Handle: u.Username, Name: &name, Avatar: u.ProfileImageURL}
	}
	if len(t.Attachments.MediaKeys) > 0 {
		q.Media = inc.media(t.Attachments.MediaKeys)
	}
	return q
}

var verificationTypes = map[string]bool{"blue": true, "business": true, "government": true}

func author(u *apiUser) protocol.TweetAuthor {
	a := protocol.TweetAuthor{
		ID: u.ID, Handle: u.Username, Name: u.Name, Avatar: u.ProfileImageURL, Description: u.Description,
		Stats: protocol.AuthorStats{Followers: u.PublicMetrics.FollowersCount, Following: u.PublicMetrics.FollowingCount},
	}
	a.Verification = verification(u)
	if len(u.Affiliation) > 0 && !bytes.Equal(u.Affiliation, []byte("null")) {
		a.Affiliation = u.Affiliation
	}
	return a
}

func verification(u *apiUser) protocol.Verification {
	v := protocol.Verification{IsVerified: u.Verified}
	if verificationTypes[u.VerifiedType] {
		t := u.VerifiedType
		v.Type, v.IsVerified = &t, true
	}
	return v
}

func metrics(m *apiTweetMetrics) protocol.TweetMetrics {
	if m == nil {
		return protocol.TweetMetrics{}
	}
	out := protocol.TweetMetrics{Likes: &m.LikeCount, Retweets: &m.RetweetCount, Replies: &m.ReplyCount, Quotes: &m.QuoteCount}
	if m.ImpressionCount != nil {
		v := strconv.FormatInt(*m.ImpressionCount, 10)
		out.Views = &v
	}
	return out
}

// shifted moves every entity by n (a prefix put before the text).
func (e apiEntities) shifted(n int) apiEntities {
	out := apiEntities{
		Hashtags: make([]apiTag, len(e.Hashtags)), Cashtags: make([]apiTag, len(e.Cashtags)),
		Mentions: make([]apiMention, len(e.Mentions)), URLs: make([]apiURL, len(e.URLs)),
	}
	for i, x := range e.Hashtags {
		x.Start, x.End = x.Start+n, x.End+n
		out.Hashtags[i] = x
	}
	for i, x := range e.Cashtags {
		x.Start, x.End = x.Start+n, x.End+n
		out.Cashtags[i] = x
	}
	for i, x := range e.Mentions {
		x.Start, x.End = x.Start+n, x.End+n
		out.Mentions[i] = x
	}
	for i, x := range e.URLs {
		x.Start, x.End = x.Start+n, x.End+n
		out.URLs[i] = x
	}
	return out
}

// hashtagsJSON writes hashtags as the payload's {text, indices} items.
func (e apiEntities) hashtagsJSON() json.RawMessage {
	b := make([]byte, 0, 2+len(e.Hashtags)*40)
	b = append(b, '[')
	for i, h := range e.Hashtags {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"text":`...)
		b = appendJSONString(b, h.Tag)
		b = appendIndices(b, h.Start, h.End)
	}
	return append(b, ']')
}

// urlsJSON writes urls in the platform's shape the payload passes through:
// {url, expanded_url, display_url, indices}.
func (e apiEntities) urlsJSON() json.RawMessage {
	b := make([]byte, 0, 2+len(e.URLs)*120)
	b = append(b, '[')
	for i, u := range e.URLs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"url":`...)
		b = appendJSONString(b, u.URL)
		b = append(b, `,"expanded_url":`...)
		b = appendJSONString(b, u.ExpandedURL)
		b = append(b, `,"display_url":`...)
		b = appendJSONString(b, u.DisplayURL)
		b = appendIndices(b, u.Start, u.End)
	}
	return append(b, ']')
}

func appendIndices(b []byte, start, end int) []byte {
	b = append(b, `,"indices":[`...)
	b = strconv.AppendInt(b, int64(start), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(end), 10)
	return append(b, "]}"...)
}

// appendJSONString appends s as a JSON string (strconv.AppendQuote escapes
// in Go syntax, which JSON does not read for every rune).
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
