package chat

import (
	"strings"
	"unicode/utf8"
)

// Bot API length limits, in characters of the visible text.
const (
	MaxText    = 4096
	MaxCaption = 1024
)

// htmlEscaper escapes what Telegram's HTML parse mode reads as markup: the
// only entities it knows are &lt; &gt; &amp; &quot;.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// Escape makes s safe as text (and inside a quoted attribute) in a message
// sent with parse_mode HTML. Invalid UTF-8 is replaced, since the Bot API
// refuses it.
func Escape(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return htmlEscaper.Replace(s)
}

// Cut shortens s to at most n characters, ending with an ellipsis when it
// cut. Cut runs before Escape, so no entity is ever split.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, c := 0, 0
	for i = range s {
		if c == n-1 {
			break
		}
		c++
	}
	return s[:i] + "…"
}

// Link is an HTML link to url showing text (both escaped).
func Link(url, text string) string {
	return `<a href="` + Escape(url) + `">` + Escape(text) + `</a>`
}

// Bold is text in bold (escaped).
func Bold(text string) string { return "<b>" + Escape(text) + "</b>" }
