package casearch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
)

const (
	solCA = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
	evmCA = "0x6982508145454Ce325dDbE47a25d4ec3d2311933"
)

func termsString(ts []Term) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Key())
	}
	return b.String()
}

func TestPostTerms(t *testing.T) {
	for _, c := range []struct {
		name     string
		text     string
		cashtags []string
		want     string
	}{
		{"plain words lowercased", "GM frens, WAGMI!", nil, "w:gm w:frens w:wagmi"},
		{"repeated words once", "moon moon MOON", nil, "w:moon"},
		{"cashtag also a word", "buy $pepe now", nil, "t:PEPE w:buy w:pepe w:now"},
		{"payload cashtags added uppercase", "no tag here", []string{"wif", "$BONK", "bad tag!"}, "t:WIF t:BONK w:no w:tag w:here"},
		{"solana kept as is, not a word", "CA: " + solCA + " lfg", nil, "c:" + solCA + " w:ca w:lfg"},
		{"evm lowercased", "token " + evmCA, nil, "c:" + strings.ToLower(evmCA) + " w:token"},
		{"evm case-insensitive dedupe", evmCA + " " + strings.ToUpper(evmCA[2:]), nil, "c:" + strings.ToLower(evmCA) + " w:" + strings.ToLower(evmCA[2:])},
		{"address in url path", "https://dex.example/" + solCA + "/chart", nil, "c:" + solCA + " w:https w:dex w:example w:chart"},
		{"separators", "e-mail @some_one #tag http://t.co/x", nil, "w:e w:mail w:some w:one w:tag w:http w:t w:co w:x"},
		{"unicode letters", "Über café naïve 東京 🚀", nil, "w:über w:café w:naïve w:東京"},
		{"digits", "100x gem 2024", nil, "w:100x w:gem w:2024"},
		{"empty", "", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tw := &protocol.Tweet{Text: c.text, Cashtags: c.cashtags}
			if got := termsString(PostTerms(tw)); got != c.want {
				t.Errorf("PostTerms(%q)\n got %s\nwant %s", c.text, got, c.want)
			}
		})
	}
}

func TestPostTermsBounds(t *testing.T) {
	long := strings.Repeat("a", 100)
	got := PostTerms(&protocol.Tweet{Text: long + " " + strings.Repeat("é", 40)})
	if len(got) != 2 || got[0].Text != strings.Repeat("a", MaxWordBytes) || got[1].Text != strings.Repeat("é", 32) {
		t.Fatalf("long words: %s", termsString(got))
	}
	var words []string
	for i := range MaxTermsPerPost + 50 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	text := "$TOP " + strings.Join(words, " ")
	got = PostTerms(&protocol.Tweet{Text: text})
	if len(got) != MaxTermsPerPost || got[0] != (Term{Cashtag, "TOP"}) {
		t.Fatalf("%d terms, first %v; want %d with the cashtag first", len(got), got[0], MaxTermsPerPost)
	}
}

func TestParseQuery(t *testing.T) {
	for _, c := range []struct {
		q    string
		kind QueryKind
		want string
	}{
		{solCA, QueryContract, "c:" + solCA},
		{"  " + solCA + ".  ", QueryContract, "c:" + solCA},
		{evmCA, QueryContract, "c:" + strings.ToLower(evmCA)},
		{strings.ToUpper(evmCA[:2]) + evmCA[2:], QueryKeywords, "w:" + strings.ToLower(strings.ToUpper(evmCA[:2])+evmCA[2:])}, // "0X..." is not an address
		{"CA:" + solCA, QueryKeywords, "w:ca c:" + solCA},
		{"$PEPE", QueryCashtag, "t:PEPE"},
		{"$pepe", QueryCashtag, "t:PEPE"},
		{"$Wif2,", QueryCashtag, "t:WIF2"},
		{"PEPE", QueryCashtag, "t:PEPE"},
		{"WIF2", QueryCashtag, "t:WIF2"},
		{"P", QueryKeywords, "w:p"},
		{"Pepe", QueryKeywords, "w:pepe"},
		{"pepe", QueryKeywords, "w:pepe"},
		{"$PEPE $WIF", QueryCashtag, "t:PEPE t:WIF"},
		{"PEPE WIF", QueryKeywords, "w:pepe w:wif"},
		{"$PEPE to the moon", QueryKeywords, "t:PEPE w:to w:the w:moon"},
		{"$TOOLONGTICKER", QueryKeywords, "w:toolongticker"},
		{"Moon moon MOON!", QueryKeywords, "w:moon"},
		{"e-mail", QueryKeywords, "w:e w:mail"},
		{"!!! ???", QueryEmpty, ""},
		{"$", QueryEmpty, ""},
		{solCA + " " + evmCA, QueryContract, "c:" + solCA + " c:" + strings.ToLower(evmCA)},
	} {
		got := ParseQuery(c.q)
		if got.Kind != c.kind || termsString(got.Terms) != c.want {
			t.Errorf("ParseQuery(%q) = %s %q, want %s %q", c.q, got.Kind, termsString(got.Terms), c.kind, c.want)
		}
	}
}

// A query's words are the words of a post with the same text: whatever a
// post says, searching for its words finds it.
func TestQueryWordsMatchPostWords(t *testing.T) {
	for _, text := range []string{"Hello, World", "naïve ÜBER 東京", "e-mail me@x.io", strings.Repeat("Ab", 50)} {
		post := map[Term]bool{}
		for _, tm := range PostTerms(&protocol.Tweet{Text: text}) {
			post[tm] = true
		}
		for _, tm := range ParseQuery(text).Terms {
			if !post[tm] {
				t.Errorf("%q: query term %s not among the post's terms", text, tm.Key())
			}
		}
	}
}
