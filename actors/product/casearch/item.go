package casearch

import (
	"bytes"
	"strconv"
	"sync"
	"time"

	"github.com/alertd/alertd/protocol"
)

// People is what rendering asks of the user directory: the author's
// location and the ids and names of mentioned accounts. Either may be
// unknown.
type People interface {
	Location(userID string) (*string, bool)
	Mentioned(handle string) (id, name string, ok bool)
}

// Rendered is a post item (spec 2 "CA Search", post item), encoded once when
// the post is indexed, in three parts: Head (from `{` to `"author":`), the
// author object (one string shared by every post with the same author
// block: see Interner) and Tail (from `,"entities"`), without the closing
// brace, so `original` can be appended per call.
type Rendered struct {
	Head   []byte
	Author string
	Tail   []byte
	// Text is where the JSON-encoded text sits in Head, for `original`
	// items of replies to this post.
	TextOff, TextLen int
	// Carried is the `original` object built from the parent that a reply's
	// payload carries (quoted_tweet on a reply); nil otherwise. It is used
	// when the parent itself is not stored.
	Carried []byte
	// Parent is the id a reply answers; empty for other posts.
	Parent string
}

// CreatedAtLayout is the textual date of `createdAt`, as the platform writes
// it (the lookup shapes use the same).
const CreatedAtLayout = "Mon Jan 02 15:04:05 -0700 2006"

// PostURL is the public address of a post.
func PostURL(handle, id string) string {
	return "https://x.com/" + handle + "/status/" + id
}

// AppendItem appends the item without its closing brace.
func (r *Rendered) AppendItem(b []byte) []byte {
	b = append(b, r.Head...)
	b = append(b, r.Author...)
	return append(b, r.Tail...)
}

// Size is the encoded size of the item.
func (r *Rendered) Size() int { return len(r.Head) + len(r.Author) + len(r.Tail) + len(r.Carried) }

// Render encodes the post item of tw. people and in may be nil. The result
// is never changed afterwards: the index and search results share it.
func Render(tw *protocol.Tweet, people People, in *Interner) *Rendered {
	r := &Rendered{}
	b := make([]byte, 0, 1024+2*len(tw.Text))
	handle := tw.Author.Handle
	b = append(b, '{')
	b = appendKey(b, "type", true)
	b = appendString(b, tw.Type)
	b = appendKey(b, "id", false)
	b = appendString(b, tw.ID)
	b = appendKey(b, "url", false)
	b = appendString(b, PostURL(handle, tw.ID))
	b = appendKey(b, "text", false)
	r.TextOff = len(b)
	b = appendString(b, tw.Text)
	r.TextLen = len(b) - r.TextOff
	b = appendKey(b, "createdAt", false)
	b = appendString(b, time.UnixMilli(tw.CreatedAt).UTC().Format(CreatedAtLayout))
	b = appendCounts(b, &tw.Metrics)
	b = appendKey(b, "lang", false)
	b = append(b, "null"...)
	reply := tw.Type == protocol.PostTypeReply || tw.InReplyTo != nil
	b = appendKey(b, "isReply", false)
	b = appendBool(b, reply)
	b = appendKey(b, "inReplyToId", false)
	if tw.InReplyTo != nil {
		b = appendStringOrNull(b, tw.InReplyTo.TweetID)
		b = appendKey(b, "inReplyToUsername", false)
		b = appendStringOrNull(b, tw.InReplyTo.User)
		r.Parent = tw.InReplyTo.TweetID
	} else {
		b = append(b, "null"...)
		b = appendKey(b, "inReplyToUsername", false)
		b = append(b, "null"...)
	}
	b = appendKey(b, "conversationId", false)
	b = appendStringOrNull(b, tw.ConversationID)
	b = appendKey(b, "author", false)
	r.Head = append(make([]byte, 0, len(b)), b...) // held for a day: no growth slack
	b = appendAuthor(b[:0], &tw.Author, people)
	r.Author = in.Intern(b)
	b = appendKey(b[:0], "entities", false)
	b = appendEntities(b, tw, people)
	if q := tw.QuotedTweet; q != nil {
		switch {
		case tw.Type == protocol.PostTypeQuote:
			b = appendKey(b, "quoted_tweet", false)
			b = appendNested(b, q)
		case tw.Type == protocol.PostTypeRepost:
			b = appendKey(b, "retweeted_tweet", false)
			b = appendNested(b, q)
		case reply && r.Parent != "" && q.ID == r.Parent && q.Text != "":
			// On a reply the payload's quoted_tweet carries the parent.
			r.Carried = AppendOriginal(nil, q.ID, q.Text, q.Author.Handle)
		}
	}
	r.Tail = append(make([]byte, 0, len(b)), b...)
	return r
}

// Interner shares equal author objects between posts: an author's many
// posts of a day mostly carry the same block. It is bounded: past max
// entries it starts afresh (strings handed out stay valid). A nil
// *Interner shares nothing. Safe for concurrent use.
type Interner struct {
	mu  sync.Mutex
	m   map[string]string
	max int
}

// NewInterner returns an interner of at most max entries.
func NewInterner(max int) *Interner { return &Interner{m: map[string]string{}, max: max} }

// Intern returns a string equal to b, shared when one was seen before.
func (in *Interner) Intern(b []byte) string {
	if in == nil {
		return string(b)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	if len(in.m) >= in.max {
		clear(in.m)
	}
	s := string(b)
	in.m[s] = s
	return s
}

// appendCounts appends the engagement counts; bookmarks are not observed
// with posts, so bookmarkCount is null.
func appendCounts(b []byte, m *protocol.TweetMetrics) []byte {
	b = appendKey(b, "retweetCount", false)
	b = appendIntPtr(b, m.Retweets)
	b = appendKey(b, "replyCount", false)
	b = appendIntPtr(b, m.Replies)
	b = appendKey(b, "likeCount", false)
	b = appendIntPtr(b, m.Likes)
	b = appendKey(b, "quoteCount", false)
	b = appendIntPtr(b, m.Quotes)
	b = appendKey(b, "viewCount", false)
	if v, ok := viewCount(m.Views); ok {
		b = strconv.AppendInt(b, v, 10)
	} else {
		b = append(b, "null"...)
	}
	b = appendKey(b, "bookmarkCount", false)
	return append(b, "null"...)
}

// viewCount reads the views string; absent or not a number is unknown.
func viewCount(s *string) (int64, bool) {
	if s == nil {
		return 0, false
	}
	v, err := strconv.ParseInt(*s, 10, 64)
	return v, err == nil
}

// appendAuthor appends the author object. What posts do not carry (account
// creation date, post, media and like counts) is null; location comes from
// the directory when it knows the author.
func appendAuthor(b []byte, a *protocol.TweetAuthor, people People) []byte {
	b = append(b, '{')
	b = appendKey(b, "userName", true)
	b = appendString(b, a.Handle)
	b = appendKey(b, "name", false)
	b = appendString(b, a.Name)
	b = appendKey(b, "id", false)
	b = appendString(b, a.ID)
	b = appendKey(b, "followers", false)
	b = strconv.AppendInt(b, a.Stats.Followers, 10)
	b = appendKey(b, "following", false)
	b = strconv.AppendInt(b, a.Stats.Following, 10)
	b = appendKey(b, "isBlueVerified", false)
	t := a.Verification.Type
	b = appendBool(b, a.Verification.IsVerified && (t == nil || *t == "blue"))
	b = appendKey(b, "profilePicture", false)
	b = appendString(b, a.Avatar)
	b = appendKey(b, "description", false)
	b = appendString(b, a.Description)
	b = appendKey(b, "location", false)
	var loc *string
	if people != nil && a.ID != "" {
		loc, _ = people.Location(a.ID)
	}
	b = appendStrPtr(b, loc)
	b = append(b, `,"createdAt":null,"statusesCount":null,"mediaCount":null,"favouritesCount":null}`...)
	return b
}

// appendEntities appends hashtags and urls as the payload has them, and
// user_mentions parsed from the text (the payload's mentions may be missing).
func appendEntities(b []byte, tw *protocol.Tweet, people People) []byte {
	b = append(b, '{')
	b = appendKey(b, "hashtags", true)
	b = appendRawArray(b, tw.Entities.Hashtags)
	b = appendKey(b, "urls", false)
	b = appendRawArray(b, tw.Entities.URLs)
	b = appendKey(b, "user_mentions", false)
	b = append(b, '[')
	n := 0
	eachMention(tw.Text, func(handle string, start, end int) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		var id, name string
		if people != nil {
			id, name, _ = people.Mentioned(lowerASCII(handle))
		}
		b = append(b, '{')
		b = appendKey(b, "id_str", true)
		b = appendStringOrNull(b, id)
		b = appendKey(b, "name", false)
		b = appendStringOrNull(b, name)
		b = appendKey(b, "screen_name", false)
		b = appendString(b, handle)
		b = appendKey(b, "indices", false)
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(start), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(end), 10)
		b = append(b, ']', '}')
	})
	return append(b, ']', '}')
}

// appendRawArray appends a JSON array received from upstream (already
// validated by the observation decoder), or [] when absent or not an array.
func appendRawArray(b []byte, raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return append(b, '[', ']')
	}
	return append(b, raw...)
}

// appendNested appends a quoted or reposted post: id, url, text, author and
// its counts (null: the payload carries the quoted post without them).
func appendNested(b []byte, q *protocol.QuotedTweet) []byte {
	b = append(b, '{')
	b = appendKey(b, "id", true)
	b = appendString(b, q.ID)
	b = appendKey(b, "url", false)
	if q.Author.Handle != "" {
		b = appendString(b, PostURL(q.Author.Handle, q.ID))
	} else {
		b = append(b, "null"...)
	}
	b = appendKey(b, "text", false)
	b = appendString(b, q.Text)
	b = appendKey(b, "author", false)
	b = append(b, '{')
	b = appendKey(b, "userName", true)
	b = appendString(b, q.Author.Handle)
	b = appendKey(b, "name", false)
	b = appendStrPtr(b, q.Author.Name)
	b = appendKey(b, "profilePicture", false)
	b = appendString(b, q.Author.Avatar)
	b = append(b, '}')
	b = append(b, `,"retweetCount":null,"replyCount":null,"likeCount":null,"quoteCount":null,"viewCount":null,"bookmarkCount":null}`...)
	return b
}

// AppendOriginal appends the `original` object of a reply: the parent's id,
// text and author user name.
func AppendOriginal(b []byte, id, text, handle string) []byte {
	b = append(b, '{')
	b = appendKey(b, "id", true)
	b = appendString(b, id)
	b = appendKey(b, "text", false)
	b = appendString(b, text)
	return appendOriginalAuthor(b, handle)
}

// appendOriginalRaw is AppendOriginal with the text already JSON-encoded.
func appendOriginalRaw(b []byte, id string, textJSON []byte, handle string) []byte {
	b = append(b, '{')
	b = appendKey(b, "id", true)
	b = appendString(b, id)
	b = appendKey(b, "text", false)
	b = append(b, textJSON...)
	return appendOriginalAuthor(b, handle)
}

func appendOriginalAuthor(b []byte, handle string) []byte {
	b = appendKey(b, "author", false)
	b = append(b, '{')
	b = appendKey(b, "userName", true)
	b = appendString(b, handle)
	return append(b, '}', '}')
}

// maxHandle is the longest handle the engine takes (protocol.ValidHandle).
const maxHandle = 50

// eachMention calls f with each @handle of text (1 to 50 letters, digits or
// '_', not preceded by one of those) and its byte offsets, '@' included.
func eachMention(text string, f func(handle string, start, end int)) {
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || i > 0 && isHandleByte(text[i-1]) {
			continue
		}
		j := i + 1
		for j < len(text) && isHandleByte(text[j]) && j-i <= maxHandle {
			j++
		}
		if j == i+1 || j < len(text) && isHandleByte(text[j]) {
			continue // empty, or longer than a handle can be
		}
		f(text[i+1:j], i, j)
		i = j - 1
	}
}

func isHandleByte(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_'
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for k := i; k < len(b); k++ {
				if b[k] >= 'A' && b[k] <= 'Z' {
					b[k] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
