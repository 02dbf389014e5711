package protocol

import (
	"reflect"
	"strings"
	"testing"
)

const (
	solUSDC  = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" // 44 chars
	solWSOL  = "So11111111111111111111111111111111111111112"  // 43 chars
	solSys   = "11111111111111111111111111111111"             // 32 ones: 32 zero bytes
	solOne   = "11111111111111111111111111111112"             // 31 zero bytes and 0x01
	solRand  = "3KwrGZNT3Ax8aAnsAu72SKg3YcLYj6ChHVVC4JGX5Wma"
	solPump  = "4wj2RhTXzcCXuGLmWbDvbfPSBXXJCF9FqKhCEcDHpump"
	sol31    = "4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofL"  // 0xff*31: 31 bytes
	sol32Min = "4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM"  // 0x01 + 31 zeros
	sol32Pad = "14uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofL" // 0x00 + 0xff*31
	btcAddr  = "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"           // base58, 25 bytes
	evmLower = "0xdac17f958d2ee523a2206206994597c13d831ec7"
	evmMixed = "0xdAC17F958D2ee523a2206206994597C13D831ec7"
	evmOther = "0x6B175474E89094C44Da98b954EedeAC495271d0F"
)

func TestIsSolanaAddress(t *testing.T) {
	cases := []struct {
		s    string
		want bool
	}{
		{solUSDC, true},
		{solWSOL, true},
		{solSys, true},
		{solOne, true},
		{solRand, true},
		{sol32Min, true},
		{sol32Pad, true},
		{sol31, false},                   // decodes to 31 bytes
		{btcAddr, false},                 // 34 chars but 25 bytes
		{strings.Repeat("z", 44), false}, // 33 bytes: overflow
		{strings.Repeat("2", 32), false}, // far below 32 bytes
		{strings.Repeat("1", 31), false}, // too short
		{solUSDC + "a", false},           // 45 chars
		{"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10", false}, // '0' not base58
		{"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtIv", false}, // 'I' not base58
		{"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtOv", false}, // 'O' not base58
		{"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtlv", false}, // 'l' not base58
		{"", false},
	}
	for _, c := range cases {
		if got := IsSolanaAddress(c.s); got != c.want {
			t.Errorf("IsSolanaAddress(%q) = %v, want %v", c.s, got, c.want)
		}
		if got := IsContract(c.s); got != c.want {
			t.Errorf("IsContract(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestIsEVMAddress(t *testing.T) {
	cases := []struct {
		s    string
		want bool
	}{
		{evmLower, true},
		{evmMixed, true},
		{"0x" + strings.Repeat("0", 40), true},
		{"0x" + strings.Repeat("a", 39), false},
		{"0x" + strings.Repeat("a", 41), false},
		{"0x" + strings.Repeat("a", 64), false},
		{"0X" + strings.Repeat("a", 40), false},
		{"0x" + strings.Repeat("a", 39) + "g", false},
		{"1x" + strings.Repeat("a", 40), false}, // (a valid Solana address, though)
	}
	for _, c := range cases {
		if got := IsEVMAddress(c.s); got != c.want {
			t.Errorf("IsEVMAddress(%q) = %v, want %v", c.s, got, c.want)
		}
		if got := IsContract(c.s); got != c.want && c.s[0] == '0' {
			t.Errorf("IsContract(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	if IsContract(" " + evmLower) {
		t.Error("IsContract accepted a leading space")
	}
}

func TestDetectContracts(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"plain words", "gm frens, wagmi", nil},
		{"bare solana", solUSDC, []string{solUSDC}},
		{"sentence", "CA: " + solUSDC + ". Buy now!", []string{solUSDC}},
		{"pump suffix", "new coin " + solPump, []string{solPump}},
		{"wrapped sol 43", "(" + solWSOL + ")", []string{solWSOL}},
		{"32 ones", "sys " + solSys + " prog", []string{solSys}},
		{"31 bytes", "ca " + sol31, nil},
		{"32 bytes low edge", "ca " + sol32Min, []string{sol32Min}},
		{"leading one padding", sol32Pad, []string{sol32Pad}},
		{"45-char run", solUSDC + "a", nil},
		{"run glued to letters", "x" + solUSDC, nil},
		{"glued to digit", solUSDC + "9", nil},
		{"underscore bounds", "ca_" + solUSDC + "_x", []string{solUSDC}},
		{"solana in url", "https://pump.fun/coin/" + solPump + "?ref=abc", []string{solPump}},
		{"dexscreener url", "https://dexscreener.com/solana/" + solRand, []string{solRand}},
		{"btc address", "send to " + btcAddr, nil},
		{"non-ascii bounds", "合约：" + solUSDC + "🚀", []string{solUSDC}},
		{"newline bounds", "line\n" + solUSDC + "\n", []string{solUSDC}},
		{"evm", "token " + evmLower + " live", []string{evmLower}},
		{"evm keeps case", evmMixed, []string{evmMixed}},
		{"evm url", "https://etherscan.io/token/" + evmMixed + "#code", []string{evmMixed}},
		{"evm 39 hex", "0x" + strings.Repeat("a", 39), nil},
		{"evm 41 hex", "0x" + strings.Repeat("a", 41), nil},
		{"tx hash 64 hex", "https://etherscan.io/tx/0x" + strings.Repeat("ab", 32), nil},
		{"evm preceded by hex", "a" + evmLower, nil},
		{"evm preceded by digit", "1" + evmLower, nil},
		{"evm followed by letter", evmLower + "z", nil},
		{"evm followed by dot", evmLower + ".", []string{evmLower}},
		{"evm upper X", "0X" + strings.Repeat("a", 40), nil},
		{"dedupe solana", solUSDC + " and again " + solUSDC, []string{solUSDC}},
		{"dedupe evm case-insensitively", evmMixed + " " + evmLower, []string{evmMixed}},
		{"order of appearance", evmOther + " then " + solUSDC + " then " + evmLower + " and " + solWSOL,
			[]string{evmOther, solUSDC, evmLower, solWSOL}},
		{"solana is case-sensitive", solRand + " " + strings.ToUpper(solRand),
			[]string{solRand, strings.ToUpper(solRand)}},
		{"dollar before address", "$" + solUSDC, []string{solUSDC}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DetectContracts(c.text)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("DetectContracts(%q) = %q, want %q", c.text, got, c.want)
			}
			if has := HasContract(c.text); has != (len(c.want) > 0) {
				t.Fatalf("HasContract(%q) = %v, want %v", c.text, has, len(c.want) > 0)
			}
		})
	}
}

func TestDetectCashtags(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"none", "no tags here", nil},
		{"simple", "buy $BTC now", []string{"BTC"}},
		{"lowercase upcased", "$sol pumps", []string{"SOL"}},
		{"digits after letter", "$WIF2 up", []string{"WIF2"}},
		{"number", "costs $100", nil},
		{"digit first", "$1INCH", nil},
		{"preceded by letter", "a$BTC", nil},
		{"preceded by digit", "5$BTC", nil},
		{"preceded by punctuation", "($BTC)", []string{"BTC"}},
		{"start of text", "$ETH", []string{"ETH"}},
		{"ten chars", "$ABCDEFGHIJ", []string{"ABCDEFGHIJ"}},
		{"eleven chars", "$ABCDEFGHIJK", nil},
		{"bare dollar", "$ $", nil},
		{"trailing dollar", "price$", nil},
		{"punctuation ends", "$BTC, $ETH. $SOL!", []string{"BTC", "ETH", "SOL"}},
		{"underscore ends", "$PEPE_2", []string{"PEPE"}},
		{"dedupe case", "$btc $BTC $Btc", []string{"BTC"}},
		{"double dollar", "$$BTC", []string{"BTC"}},
		{"non-ascii after", "$BTC🚀", []string{"BTC"}},
		{"non-ascii letter not a tag", "$ébc", nil},
		{"in url", "https://x.com/search?q=$WIF", []string{"WIF"}},
		{"next tag after long run", "$ABCDEFGHIJKL $OK", []string{"OK"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DetectCashtags(c.text)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("DetectCashtags(%q) = %q, want %q", c.text, got, c.want)
			}
			if has := HasCashtag(c.text); has != (len(c.want) > 0) {
				t.Fatalf("HasCashtag(%q) = %v, want %v", c.text, has, len(c.want) > 0)
			}
		})
	}
}

func TestUpperASCIINoAllocWhenUpper(t *testing.T) {
	if a := testing.AllocsPerRun(100, func() { _ = upperASCII("BTC2") }); a != 0 {
		t.Fatalf("upperASCII of an uppercase tag allocated %v times", a)
	}
	if got := upperASCII("wIf2"); got != "WIF2" {
		t.Fatalf("upperASCII = %q", got)
	}
}

func TestHasNoAlloc(t *testing.T) {
	text := benchText
	if a := testing.AllocsPerRun(100, func() { _ = HasContract(text); _ = HasCashtag(text) }); a != 0 {
		t.Fatalf("HasContract/HasCashtag allocated %v times", a)
	}
}

const benchText = "🚨 NEW LAUNCH 🚨 $WIF2 is sending it. CA: " + solPump +
	" (also bridged: " + evmMixed + ") chart https://dexscreener.com/solana/" + solRand +
	" not financial advice, tx https://etherscan.io/tx/0x" +
	"abababababababababababababababababababababababababababababababab $SOL $sol gm"

const benchPlain = "Just shipped a new feature for our users, thanks to everyone who gave feedback " +
	"during the beta. More updates coming next week, stay tuned and keep building!"

func BenchmarkDetectContracts(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		_ = DetectContracts(benchText)
	}
}

func BenchmarkDetectContractsPlain(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchPlain)))
	for b.Loop() {
		_ = DetectContracts(benchPlain)
	}
}

func BenchmarkDetectCashtags(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		_ = DetectCashtags(benchText)
	}
}

func BenchmarkHasContract(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = HasContract(benchText)
	}
}
