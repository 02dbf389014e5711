package searchalerts

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

func TestTokenize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "[]"},
		{"Solana ETF approved!", "[solana etf approved]"},
		{"$WIF, #wif @Wif wif", "[wif]"},
		{"new_launch 2x ... gm", "[new_launch 2x gm]"},
		{"Ünïcode WÖRDS und wörds", "[ünïcode wörds und]"},
		{"🚀🚀 to the moon", "[to the moon]"},
		{"a-b a.b", "[a b]"},
	} {
		if got := fmt.Sprint(Tokenize(c.in)); got != c.want {
			t.Errorf("Tokenize(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	max := strings.Repeat("é", protocol.SAQueryMaxChars)
	for _, c := range []struct {
		in, text, words string
		ok              bool
	}{
		{"  Solana ETF ", "Solana ETF", "[solana etf]", true},
		{"x", "x", "[x]", true},
		{max, max, "[" + max + "]", true},
		{max + "é", "", "", false},
		{"   ", "", "", false},
		{"", "", "", false},
		{"🚀 !!", "", "", false},
	} {
		text, words, err := ParseQuery(c.in)
		if (err == nil) != c.ok || (c.ok && (text != c.text || fmt.Sprint(words) != c.words)) {
			t.Errorf("ParseQuery(%.20q) = %.20q, %.30v, %v; want %.20q %.30s ok %v", c.in, text, words, err, c.text, c.words, c.ok)
		}
	}
}

func set(words ...string) map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

func TestMatches(t *testing.T) {
	post := set(Tokenize("Breaking: the SEC approves a Solana ETF today")...)
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"solana etf", true},
		{"ETF Solana", true},
		{"solana", true},
		{"sol", false},
		{"solana etf bitcoin", false},
		{"SEC-approves", true},
	} {
		if got := Matches(Tokenize(c.query), post); got != c.want {
			t.Errorf("Matches(%q) = %v, want %v", c.query, got, c.want)
		}
	}
	if Matches(nil, post) {
		t.Error("an empty query matches")
	}
}

func TestNextFlush(t *testing.T) {
	c := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, x := range []struct {
		now  time.Duration
		want time.Duration
	}{
		{0, 5 * time.Minute},
		{time.Second, 5 * time.Minute},
		{5*time.Minute - time.Nanosecond, 5 * time.Minute},
		{5 * time.Minute, 10 * time.Minute},
		{61 * time.Minute, 65 * time.Minute},
		{-time.Hour, 5 * time.Minute},
	} {
		if got := NextFlush(c, 5*time.Minute, c.Add(x.now)); !got.Equal(c.Add(x.want)) {
			t.Errorf("NextFlush at +%v = +%v, want +%v", x.now, got.Sub(c), x.want)
		}
	}
}

func TestIntervalDuration(t *testing.T) {
	d := protocol.DefaultTimings().SAIntervals
	for name, want := range map[string]time.Duration{"1m": time.Minute, "5m": 5 * time.Minute, "10m": 10 * time.Minute,
		"30m": 30 * time.Minute, "1h": time.Hour, "6h": 6 * time.Hour} {
		if got, ok := IntervalDuration(name, d); !ok || got != want {
			t.Errorf("IntervalDuration(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	for _, bad := range []string{"", "2m", "1M", "60s", "1d"} {
		if _, ok := IntervalDuration(bad, d); ok {
			t.Errorf("IntervalDuration(%q) accepted", bad)
		}
	}
	if _, ok := IntervalDuration(DefaultInterval, d); !ok {
		t.Error("the default interval is not an option")
	}
	if _, ok := IntervalDuration("6h", d[:5]); ok {
		t.Error("an option beyond the durations given is accepted")
	}
}

func TestRecentSet(t *testing.T) {
	r := newRecentSet(3)
	steps := []struct {
		id   string
		want bool
	}{{"1", true}, {"2", true}, {"1", false}, {"x", true}, {"x", false}, {"4", true}, {"1", true}, {"4", false}, {"2", true}}
	for i, s := range steps {
		if got := r.Add(s.id); got != s.want {
			t.Fatalf("step %d: Add(%q) = %v, want %v", i, s.id, got, s.want)
		}
	}
	if len(r.m) != 3 || len(r.ring) != 3 {
		t.Fatalf("set holds %d ids in a ring of %d, want 3", len(r.m), len(r.ring))
	}
}
