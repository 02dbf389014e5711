package protocol

import (
	"math/big"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The fuzz targets compare the byte scanners with a slow, obviously correct
// reference built on regexp and math/big.

var (
	refToken   = regexp.MustCompile(`[A-Za-z0-9]+`)
	refEVM     = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	refBase58  = regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`)
	refCashtag = regexp.MustCompile(`\$([A-Za-z][A-Za-z0-9]*)`)
)

func refBase58Len(s string) int {
	n := new(big.Int)
	for i := 0; i < len(s); i++ {
		n.Mul(n, big.NewInt(58))
		n.Add(n, big.NewInt(int64(strings.IndexByte(base58Alphabet, s[i]))))
	}
	zeros := len(s) - len(strings.TrimLeft(s, "1"))
	return zeros + len(n.Bytes())
}

func refContracts(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, tok := range refToken.FindAllString(text, -1) {
		ok := refEVM.MatchString(tok) || refBase58.MatchString(tok) && refBase58Len(tok) == 32
		if !ok {
			continue
		}
		k := tok
		if refEVM.MatchString(tok) {
			k = strings.ToLower(tok)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, tok)
		}
	}
	return out
}

func refCashtags(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range refCashtag.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if start > 0 && charClass[text[start-1]]&cAlnum != 0 {
			continue
		}
		if end-start-1 > CashtagMax {
			continue
		}
		tag := strings.ToUpper(text[m[2]:m[3]])
		if !seen[tag] {
			seen[tag] = true
			out = append(out, tag)
		}
	}
	return out
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{"", benchText, benchPlain, "$BTC a$ETH $100 $WIF2", solUSDC + "a",
		"0x" + strings.Repeat("a", 64), sol31, sol32Pad, "$ABCDEFGHIJK$X", evmMixed + evmLower} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := DetectContracts(text)
		if want := refContracts(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("DetectContracts(%q) = %q, reference %q", text, got, want)
		}
		if HasContract(text) != (len(got) > 0) {
			t.Fatalf("HasContract(%q) disagrees with DetectContracts", text)
		}
		for _, ca := range got {
			if !IsContract(ca) || !strings.Contains(text, ca) {
				t.Fatalf("DetectContracts(%q) returned %q", text, ca)
			}
		}
		tags := DetectCashtags(text)
		if want := refCashtags(text); !reflect.DeepEqual(tags, want) {
			t.Fatalf("DetectCashtags(%q) = %q, reference %q", text, tags, want)
		}
		if HasCashtag(text) != (len(tags) > 0) {
			t.Fatalf("HasCashtag(%q) disagrees with DetectCashtags", text)
		}
	})
}
