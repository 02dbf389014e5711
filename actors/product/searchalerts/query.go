package searchalerts

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/alertd/alertd/protocol"
)

// Intervals are the check interval options of a query, shortest first (spec
// 3: 1 min, 5 min, 10 min, 30 min, 1 h, 6 h); protocol.Timings.SAIntervals
// says what each stands for.
var Intervals = []string{"1m", "5m", "10m", "30m", "1h", "6h"}

// DefaultInterval is the interval of a query created without one.
const DefaultInterval = "5m"

// IntervalDuration returns what interval name stands for under durations
// (protocol.Timings.SAIntervals, in Intervals order).
func IntervalDuration(name string, durations []time.Duration) (time.Duration, bool) {
	i := slices.Index(Intervals, name)
	if i < 0 || i >= len(durations) || durations[i] <= 0 {
		return 0, false
	}
	return durations[i], true
}

// Tokenize returns the words of text, lowercased, each once, in order of
// first appearance. A word is a run of letters, digits and underscores:
// punctuation, '$', '#' and '@' separate words ("$WIF," is the word wif).
func Tokenize(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, notWordRune) {
		w = fold(w)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func notWordRune(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') }

// fold lowercases so that strings.EqualFold-equal words meet.
func fold(s string) string { return strings.ToLower(strings.ToUpper(s)) }

// ParseQuery validates query_text (spec 3: 1 to 200 characters, counted
// after surrounding spaces are trimmed) and returns the trimmed text and its
// words. A query needs at least one word to match anything.
func ParseQuery(text string) (string, []string, error) {
	text = strings.TrimSpace(text)
	n := utf8.RuneCountInString(text)
	switch {
	case n == 0:
		return "", nil, errors.New("query_text must not be empty")
	case n > protocol.SAQueryMaxChars:
		return "", nil, fmt.Errorf("query_text is %d characters; at most %d", n, protocol.SAQueryMaxChars)
	}
	words := Tokenize(text)
	if len(words) == 0 {
		return "", nil, errors.New("query_text needs at least one word (letters or digits)")
	}
	return text, words, nil
}

// Matches reports whether a post whose words are post holds every word of
// the query (case-insensitive whole words, in any order).
func Matches(query []string, post map[string]struct{}) bool {
	for _, w := range query {
		if _, ok := post[w]; !ok {
			return false
		}
	}
	return len(query) > 0
}

// NextFlush is the first flush time of a query after now: flushes fall on
// created + k x every, k >= 1.
func NextFlush(created time.Time, every time.Duration, now time.Time) time.Time {
	if every <= 0 {
		return now
	}
	if now.Before(created) {
		return created.Add(every)
	}
	k := now.Sub(created)/every + 1
	return created.Add(k * every)
}
