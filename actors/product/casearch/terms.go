package casearch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alertd/alertd/protocol"
)

// TermKind tells what a term of the index is.
type TermKind byte

const (
	// Contract is a contract address: Solana as written (case-sensitive),
	// EVM lowercased (EVM addresses match case-insensitively).
	Contract TermKind = 'c'
	// Cashtag is a ticker, uppercase, without '$'.
	Cashtag TermKind = 't'
	// Word is a lowercased word token.
	Word TermKind = 'w'
)

// Term is one token of the index: what a post carries and a query asks for.
type Term struct {
	Kind TermKind
	Text string // normalised: see the kinds
}

// Key is the term as the store keeps it: kind, ':' and text.
func (t Term) Key() string { return string(t.Kind) + ":" + t.Text }

// Limits of tokenisation.
const (
	// MaxWordBytes: longer words are cut to this many bytes (at a rune
	// boundary), in posts and queries alike, so they still match each other.
	MaxWordBytes = 64
	// MaxTermsPerPost bounds the distinct terms one post adds to the index;
	// contracts and cashtags come first, so only words of very long posts
	// are left out.
	MaxTermsPerPost = 256
)

// PostTerms returns the distinct terms of a post: the contract addresses
// and cashtags of its text (cashtags also from the payload's `cashtags`),
// then its words. A contract address is not also a word.
func PostTerms(tw *protocol.Tweet) []Term {
	out := make([]Term, 0, 24)
	seen := make(map[Term]struct{}, 24)
	add := func(t Term) {
		if len(out) >= MaxTermsPerPost {
			return
		}
		if _, ok := seen[t]; ok {
			return
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	for _, c := range protocol.DetectContracts(tw.Text) {
		add(contractTerm(c))
	}
	for _, c := range protocol.DetectCashtags(tw.Text) {
		add(Term{Cashtag, c})
	}
	for _, c := range tw.Cashtags {
		if c = strings.TrimPrefix(c, "$"); isTicker(c) {
			add(Term{Cashtag, strings.ToUpper(c)})
		}
	}
	eachWord(tw.Text, func(w string, contract bool) {
		if !contract { // added above, from the same tokens
			add(Term{Word, w})
		}
	})
	return out
}

// contractTerm normalises an address: EVM lowercased, Solana as is.
func contractTerm(addr string) Term {
	if protocol.IsEVMAddress(addr) {
		return Term{Contract, strings.ToLower(addr)}
	}
	return Term{Contract, addr}
}

// isTicker reports whether s is a cashtag body: a letter, then up to 9
// letters or digits (ASCII), as protocol.DetectCashtags reads them.
func isTicker(s string) bool {
	if len(s) == 0 || len(s) > protocol.CashtagMax || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isASCIILetter(s[i]) && !(s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isWordRune: letters, digits and combining marks of any script make words;
// everything else (space, punctuation, '_', '$', '@', '#', symbols, emoji)
// separates them.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		c := byte(r)
		return isASCIILetter(c) || c >= '0' && c <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// eachWord calls f with each word of text: a contract address as written
// (contract true), any other word lowercased.
func eachWord(text string, f func(w string, contract bool)) {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		if w := text[i:j]; protocol.IsContract(w) {
			f(w, true)
		} else {
			f(normWord(w), false)
		}
		i = j
	}
}

// normWord lowercases w and cuts it to MaxWordBytes at a rune boundary.
func normWord(w string) string {
	lower := true
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			lower = false
			break
		}
	}
	if !lower {
		w = strings.ToLower(w)
	}
	if len(w) > MaxWordBytes {
		cut := MaxWordBytes
		for cut > 0 && !utf8.RuneStart(w[cut]) {
			cut--
		}
		w = w[:cut]
	}
	return w
}
