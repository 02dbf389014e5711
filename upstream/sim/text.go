package sim

import (
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/alertd/alertd/protocol"
)

// hashEnt is a hashtags entity.
type hashEnt struct {
	Text    string `json:"text"`
	Indices [2]int `json:"indices"`
}

// urlEnt is a urls entity (the platform's shape).
type urlEnt struct {
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	DisplayURL  string `json:"display_url"`
	Indices     [2]int `json:"indices"`
}

// textB builds a post text and its entities together, so that indices are
// right by construction. Texts are ASCII up to the last entity, so byte
// offsets equal rune and UTF-16 offsets.
type textB struct {
	b        []byte
	syms     []protocol.Symbol
	tags     []hashEnt
	urls     []urlEnt
	mentions []string
	addrs    []string // contract addresses written into the text
}

func (t *textB) s(x string) { t.b = append(t.b, x...) }

func (t *textB) cashtag(sym string) {
	st := len(t.b)
	t.b = append(t.b, '$')
	t.b = append(t.b, sym...)
	t.syms = append(t.syms, protocol.Symbol{Text: sym, Indices: []int{st, len(t.b)}})
}

func (t *textB) hashtag(tag string) {
	st := len(t.b)
	t.b = append(t.b, '#')
	t.b = append(t.b, tag...)
	t.tags = append(t.tags, hashEnt{Text: tag, Indices: [2]int{st, len(t.b)}})
}

func (t *textB) mention(h string) {
	t.b = append(t.b, '@')
	t.b = append(t.b, h...)
	if !slices.Contains(t.mentions, h) {
		t.mentions = append(t.mentions, h)
	}
}

func (t *textB) addr(a string) {
	t.b = append(t.b, a...)
	t.addrs = append(t.addrs, a)
}

// url writes a shortened link for expanded.
func (t *textB) url(r rng, expanded string) {
	short := "https://t.co/" + r.alnum(10)
	st := len(t.b)
	t.b = append(t.b, short...)
	display := strings.TrimPrefix(strings.TrimPrefix(expanded, "https://"), "http://")
	display = strings.TrimPrefix(display, "www.")
	if len(display) > 26 {
		display = display[:26] + "…"
	}
	t.urls = append(t.urls, urlEnt{URL: short, ExpandedURL: expanded, DisplayURL: display, Indices: [2]int{st, len(t.b)}})
}

func (t *textB) text() string { return string(t.b) }

// cashtags are the distinct symbols in order of appearance.
func (t *textB) cashtags() []string {
	out := []string{}
	for _, s := range t.syms {
		if !slices.Contains(out, s.Text) {
			out = append(out, s.Text)
		}
	}
	return out
}

// appendFrom appends o's text and entities, shifting indices.
func (t *textB) appendFrom(o *textB) {
	off := len(t.b)
	t.b = append(t.b, o.b...)
	for _, s := range o.syms {
		t.syms = append(t.syms, protocol.Symbol{Text: s.Text, Indices: []int{s.Indices[0] + off, s.Indices[1] + off}})
	}
	for _, h := range o.tags {
		t.tags = append(t.tags, hashEnt{Text: h.Text, Indices: [2]int{h.Indices[0] + off, h.Indices[1] + off}})
	}
	for _, u := range o.urls {
		u.Indices = [2]int{u.Indices[0] + off, u.Indices[1] + off}
		t.urls = append(t.urls, u)
	}
	for _, m := range o.mentions {
		if !slices.Contains(t.mentions, m) {
			t.mentions = append(t.mentions, m)
		}
	}
	t.addrs = append(t.addrs, o.addrs...)
}

// truncated is the text cut to at most n bytes (at an ASCII boundary) with an
// ellipsis, keeping the entities that end before the cut.
func (t *textB) truncated(n int) *textB {
	for i := 0; i < n && i < len(t.b); i++ {
		if t.b[i] >= 0x80 {
			n = i
			break
		}
	}
	if n >= len(t.b) {
		return t
	}
	o := &textB{b: append(append([]byte(nil), t.b[:n]...), "…"...)}
	for _, s := range t.syms {
		if s.Indices[1] <= n {
			o.syms = append(o.syms, s)
		}
	}
	for _, h := range t.tags {
		if h.Indices[1] <= n {
			o.tags = append(o.tags, h)
		}
	}
	for _, u := range t.urls {
		if u.Indices[1] <= n {
			o.urls = append(o.urls, u)
		}
	}
	for _, m := range t.mentions {
		if strings.Contains(string(o.b), "@"+m) {
			o.mentions = append(o.mentions, m)
		}
	}
	for _, a := range t.addrs {
		if strings.Contains(string(o.b), a) {
			o.addrs = append(o.addrs, a)
		}
	}
	return o
}

func (t *textB) entities() protocol.TweetEntities {
	tags, _ := json.Marshal(nonNil(t.tags))
	urls, _ := json.Marshal(nonNil(t.urls))
	syms := t.syms
	if syms == nil {
		syms = []protocol.Symbol{}
	}
	return protocol.TweetEntities{Hashtags: tags, URLs: urls, Symbols: syms}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
