package casearch

import (
	"strings"
	"unicode"

	"github.com/alertd/alertd/protocol"
)

// QueryKind is what a query was detected as.
type QueryKind string

const (
	QueryContract QueryKind = "contract"
	QueryCashtag  QueryKind = "cashtag"
	QueryKeywords QueryKind = "keywords"
	// QueryEmpty: the query has no term (only punctuation): it matches nothing.
	QueryEmpty QueryKind = "empty"
)

// Query is a parsed search query: a post matches when it carries every term.
type Query struct {
	Kind  QueryKind
	Terms []Term
}

// ParseQuery detects what q asks for. q is split at white space into
// chunks, and each chunk, with surrounding punctuation other than a leading
// '$' trimmed, is read as:
//
//   - a contract address (protocol.IsContract): that address, EVM
//     case-insensitively, Solana exactly;
//   - '$' and a ticker ($PEPE, $pepe): that cashtag, uppercased;
//   - when it is the whole query, a bare ticker written in capitals, 2 to 10
//     letters or digits starting with a letter (PEPE, WIF2): that cashtag;
//   - otherwise its words, lowercased, as posts are tokenised ("moon!" is
//     moon; "e-mail" is e and mail), a contract address among them (as in
//     "CA:<address>") taken as that address.
//
// Terms are deduplicated. Kind is contract or cashtag when every term is of
// that kind, keywords otherwise, empty when there is no term.
func ParseQuery(q string) Query {
	chunks := strings.Fields(q)
	var terms []Term
	seen := map[Term]struct{}{}
	add := func(t Term) {
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			terms = append(terms, t)
		}
	}
	for _, c := range chunks {
		core := trimChunk(c)
		switch {
		case core == "":
		case protocol.IsContract(core):
			add(contractTerm(core))
		case core[0] == '$' && isTicker(core[1:]):
			add(Term{Cashtag, strings.ToUpper(core[1:])})
		case len(chunks) == 1 && isBareTicker(core):
			add(Term{Cashtag, core})
		default:
			eachWord(c, func(w string, contract bool) {
				if contract {
					add(contractTerm(w))
				} else {
					add(Term{Word, w})
				}
			})
		}
	}
	return Query{Kind: kindOf(terms), Terms: terms}
}

func kindOf(terms []Term) QueryKind {
	if len(terms) == 0 {
		return QueryEmpty
	}
	k := terms[0].Kind
	for _, t := range terms[1:] {
		if t.Kind != k {
			return QueryKeywords
		}
	}
	switch k {
	case Contract:
		return QueryContract
	case Cashtag:
		return QueryCashtag
	}
	return QueryKeywords
}

// trimChunk drops punctuation around a chunk, keeping a leading '$'.
func trimChunk(c string) string {
	dollar := strings.HasPrefix(c, "$")
	c = strings.TrimFunc(c, func(r rune) bool { return !isWordRune(r) })
	if dollar && c != "" {
		return "$" + c
	}
	return c
}

// isBareTicker: 2 to 10 capitals or digits starting with a capital.
func isBareTicker(s string) bool {
	if len(s) < 2 || !isTicker(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}
