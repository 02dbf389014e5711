package chat

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alertd/alertd/protocol"
)

func TestEscape(t *testing.T) {
	if got := Escape(`<b>Tom & "Jerry"</b>`); got != "&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;" {
		t.Errorf("Escape = %q", got)
	}
	if got := Escape("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{{"hello", 5, "hello"}, {"hello!", 5, "hell…"}, {"héllo wörld", 4, "hél…"}, {"ab", 0, ""}, {"ab", 1, "…"}} {
		if got := Cut(c.in, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// tags are the only markup the formatter writes.
var tags = regexp.MustCompile(`</?b>|</?i>|<a href="[^"<>]*">|</a>`)

// checkHTML fails when s has markup other than the formatter's own, or an
// ampersand that starts no entity: what came from the platform was escaped.
func checkHTML(t *testing.T, s string) {
	t.Helper()
	rest := tags.ReplaceAllString(s, "")
	if strings.ContainsAny(rest, "<>") {
		t.Fatalf("unescaped markup in %q", s)
	}
	if strings.Contains(strings.NewReplacer("&lt;", "", "&gt;", "", "&amp;", "", "&quot;", "").Replace(rest), "&") {
		t.Fatalf("a bare & in %q", s)
	}
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8 in %q", s)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "<b>", "a & b", `"q"`, "&amp;", "\xff", "🚀<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		checkHTML(t, e)
		if utf8.ValidString(s) && html.UnescapeString(e) != s {
			t.Fatalf("Escape(%q) = %q does not unescape back", s, e)
		}
	})
}

func FuzzTweetAlert(f *testing.F) {
	f.Add("whale", "gm <b>", "reply", "parent<x>", "quoted & text", 1)
	f.Add("a", "", "post", "", "", 0)
	f.Add("x", strings.Repeat("é<", 3000), "quote", "", strings.Repeat("&", 500), 12)
	f.Fuzz(func(t *testing.T, handle, text, typ, replyTo, quote string, photos int) {
		p := &protocol.Tweet{ID: "1", Type: typ, Text: text, Author: protocol.TweetAuthor{Handle: handle}}
		if replyTo != "" {
			p.InReplyTo = &protocol.InReplyTo{User: replyTo}
		}
		if quote != "" {
			p.QuotedTweet = &protocol.QuotedTweet{Text: quote, Author: protocol.QuotedAuthor{Handle: handle}}
		}
		for i := range photos % 16 {
			p.Media = append(p.Media, protocol.Media{Type: "photo", URL: "https://p/" + string(rune('a'+i))})
		}
		s, ph := TweetAlert(p)
		checkHTML(t, s)
		limit := MaxText
		if len(ph) > 0 {
			limit = MaxCaption
		}
		visible := html.UnescapeString(tags.ReplaceAllString(s, ""))
		if n := utf8.RuneCountInString(visible); n > limit {
			t.Fatalf("visible text %d characters, limit %d", n, limit)
		}
		if len(ph) > maxAlbum {
			t.Fatalf("%d photos", len(ph))
		}
	})
}
