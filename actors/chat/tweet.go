package chat

import (
	"strings"

	"github.com/alertd/alertd/protocol"
)

// maxAlbum is the Bot API's most photos in one media group.
const maxAlbum = 10

// TweetAlert formats a post as one chat alert: a header with the author and
// what kind of post it is, the reply or quote context in one line, the text,
// and the post's URL; the post's photos (an album when several) with the
// same text as caption. Everything from the platform is escaped.
func TweetAlert(post *protocol.Tweet) (text string, photos []string) {
	for _, m := range post.Media {
		if m.Type == "photo" && m.URL != "" && len(photos) < maxAlbum {
			photos = append(photos, m.URL)
		}
	}
	handle := strings.TrimPrefix(strings.TrimSpace(post.Author.Handle), "@")
	url := protocol.PostURL(handle, post.ID)
	var b strings.Builder
	b.WriteString(Bold("@" + handle))
	switch post.Type {
	case protocol.PostTypeReply:
		b.WriteString(" replied")
	case protocol.PostTypeQuote:
		b.WriteString(" quoted")
	case protocol.PostTypeRepost:
		b.WriteString(" reposted")
	default:
		b.WriteString(" posted")
	}
	b.WriteByte('\n')
	if ctx := contextLine(post); ctx != "" {
		b.WriteString("<i>")
		b.WriteString(Escape(ctx))
		b.WriteString("</i>\n")
	}
	head := b.String()
	tail := "\n" + Link(url, url)
	limit := MaxText
	if len(photos) > 0 {
		limit = MaxCaption
	}
	// The visible length of head and tail is at most their byte length:
	// what is left goes to the text.
	room := limit - len(head) - len(tail) - 2
	body := ""
	if room > 0 && post.Text != "" {
		body = Escape(Cut(post.Text, room)) + "\n"
	}
	return head + body + tail, photos
}

// contextLine is the one line that says what a reply answers or what a
// quote quotes.
func contextLine(post *protocol.Tweet) string {
	if post.InReplyTo != nil && post.InReplyTo.User != "" {
		return "↩ in reply to @" + strings.TrimPrefix(post.InReplyTo.User, "@")
	}
	if q := post.QuotedTweet; q != nil {
		line := "❝ @" + strings.TrimPrefix(q.Author.Handle, "@")
		if t := strings.Join(strings.Fields(q.Text), " "); t != "" {
			line += ": " + Cut(t, 140)
		}
		return line
	}
	return ""
}
