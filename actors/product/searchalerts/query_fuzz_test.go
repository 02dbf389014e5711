package searchalerts

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alertd/alertd/protocol"
)

// FuzzParseQuery: client query texts and post texts never panic; a valid
// query's words are non-empty, folded, unique and found in its own text's
// words, so a post repeating the query text matches it.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"Solana ETF", "$WIF, #wif", "   ", "🚀", "ſOL sol", "a-b_c", "\xff\xfe", strings.Repeat("é", 201)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		post := map[string]struct{}{}
		for _, w := range Tokenize(text) {
			if w == "" || strings.IndexFunc(w, notWordRune) >= 0 {
				t.Fatalf("word %q of %q is empty or holds a separator", w, text)
			}
			if fold(w) != w {
				t.Fatalf("word %q is not folded", w)
			}
			if _, dup := post[w]; dup {
				t.Fatalf("word %q twice", w)
			}
			post[w] = struct{}{}
		}
		trimmed, words, err := ParseQuery(text)
		if err != nil {
			return
		}
		if n := utf8.RuneCountInString(trimmed); n == 0 || n > protocol.SAQueryMaxChars || len(words) == 0 {
			t.Fatalf("accepted %q: %d characters, %d words", text, n, len(words))
		}
		if !Matches(words, post) {
			t.Fatalf("query %q does not match its own text", text)
		}
	})
}
