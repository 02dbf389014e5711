package protocol

import (
	"math/bits"
	"strings"
)

// Contract-address and cashtag detection from post text (spec 2: `onlyCA`,
// `onlyTicker`, Enterprise `extracted_cas`; CA Search). The scanners walk the
// text once, byte by byte, with a lookup table and no regexp; they allocate
// only for the result slice (addresses are substrings of text, so a caller
// that keeps them keeps text alive).
//
// A token is a maximal run of ASCII letters and digits. Anything else (space,
// punctuation, '/', '_', '$', any non-ASCII byte) bounds a token, so an
// address inside a URL path or followed by a full stop is found, while one
// glued to more letters or digits is not.
//
//   - Solana: a token of 32 to 44 base58 characters that decodes to exactly
//     32 bytes.
//   - EVM: a token of "0x" and exactly 40 hex digits (so a 64-hex transaction
//     hash is not an address). Original case is kept.
//   - Cashtag: '$' not preceded by a letter or digit, then a token of 1 to 10
//     letters and digits starting with a letter; returned uppercase without
//     '$'. A longer token ($ABCDEFGHIJK) is not a cashtag.

const (
	cAlnum  = 1 << iota // ASCII letter or digit
	cBase58             // in the base58 alphabet
	cHex                // hex digit
	cAlpha              // ASCII letter
)

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var (
	charClass   [256]uint8
	base58Value [256]uint8
)

func init() {
	for c := '0'; c <= '9'; c++ {
		charClass[c] |= cAlnum | cHex
	}
	for c := 'a'; c <= 'z'; c++ {
		charClass[c] |= cAlnum | cAlpha
		charClass[c-'a'+'A'] |= cAlnum | cAlpha
	}
	for c := 'a'; c <= 'f'; c++ {
		charClass[c] |= cHex
		charClass[c-'a'+'A'] |= cHex
	}
	for i := 0; i < len(base58Alphabet); i++ {
		charClass[base58Alphabet[i]] |= cBase58
		base58Value[base58Alphabet[i]] = uint8(i)
	}
}

// Lengths of the address forms.
const (
	SolanaMinLen = 32
	SolanaMaxLen = 44
	EVMLen       = 42 // "0x" + 40 hex digits
	CashtagMax   = 10
)

// DetectContracts returns the contract addresses in text (Solana and EVM),
// deduplicated in order of first appearance. EVM addresses keep their case and
// are deduplicated case-insensitively (the first spelling wins); Solana
// addresses are case-sensitive. It returns nil when there is none.
func DetectContracts(text string) []string {
	var out []string
	for i, n := 0, len(text); i < n; {
		if charClass[text[i]]&cAlnum == 0 {
			i++
			continue
		}
		j := i + 1
		for j < n && charClass[text[j]]&cAlnum != 0 {
			j++
		}
		if tok := text[i:j]; isContractToken(tok) {
			out = appendContract(out, tok)
		}
		i = j
	}
	return out
}

// HasContract reports whether text carries at least one contract address. It
// does not allocate.
func HasContract(text string) bool {
	for i, n := 0, len(text); i < n; {
		if charClass[text[i]]&cAlnum == 0 {
			i++
			continue
		}
		j := i + 1
		for j < n && charClass[text[j]]&cAlnum != 0 {
			j++
		}
		if isContractToken(text[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// IsContract reports whether s, as a whole, is a Solana or EVM address.
func IsContract(s string) bool {
	for i := 0; i < len(s); i++ {
		if charClass[s[i]]&cAlnum == 0 {
			return false
		}
	}
	return isContractToken(s)
}

// IsSolanaAddress reports whether s is 32 to 44 base58 characters decoding to
// exactly 32 bytes.
func IsSolanaAddress(s string) bool {
	if len(s) < SolanaMinLen || len(s) > SolanaMaxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if charClass[s[i]]&cBase58 == 0 {
			return false
		}
	}
	return base58Is32(s)
}

// IsEVMAddress reports whether s is "0x" followed by exactly 40 hex digits.
func IsEVMAddress(s string) bool {
	if len(s) != EVMLen || s[0] != '0' || s[1] != 'x' {
		return false
	}
	for i := 2; i < EVMLen; i++ {
		if charClass[s[i]]&cHex == 0 {
			return false
		}
	}
	return true
}

// isContractToken classifies a maximal alphanumeric token.
func isContractToken(tok string) bool {
	switch {
	case len(tok) == EVMLen && tok[0] == '0' && tok[1] == 'x':
		return IsEVMAddress(tok)
	case len(tok) >= SolanaMinLen && len(tok) <= SolanaMaxLen:
		return IsSolanaAddress(tok)
	}
	return false
}

func appendContract(out []string, tok string) []string {
	evm := tok[0] == '0' // base58 has no '0': only EVM addresses start with it
	for _, s := range out {
		if s == tok || evm && s[0] == '0' && equalFoldASCII(s, tok) {
			return out
		}
	}
	if out == nil {
		out = make([]string, 0, 2)
	}
	return append(out, tok)
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x != y && x|0x20 != y|0x20 {
			return false
		}
	}
	return true
}

// base58Is32 decodes s (known to be base58) and reports whether the result is
// exactly 32 bytes: the leading '1's (zero bytes) plus the significant bytes
// of the number. The number is kept in four 64-bit limbs, little endian; a
// carry out of the top limb means more than 32 bytes.
func base58Is32(s string) bool {
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// Digits are folded in groups of up to 10 (58^10 < 2^64): one limb pass
	// per group instead of one per character.
	var l [4]uint64
	for i := zeros; i < len(s); {
		mul, acc := uint64(1), uint64(0)
		for k := 0; k < 10 && i < len(s); k++ {
			mul *= 58
			acc = acc*58 + uint64(base58Value[s[i]])
			i++
		}
		carry := acc
		for k := 0; k < 4; k++ {
			hi, lo := bits.Mul64(l[k], mul)
			lo, c := bits.Add64(lo, carry, 0)
			l[k] = lo
			carry = hi + c
		}
		if carry != 0 {
			return false
		}
	}
	sig := 0 // significant bytes of the number
	for k := 3; k >= 0; k-- {
		if l[k] != 0 {
			sig = k*8 + (bits.Len64(l[k])+7)/8
			break
		}
	}
	return zeros+sig == 32
}

// DetectCashtags returns the cashtags of text, uppercase without '$',
// deduplicated in order of first appearance; nil when there is none.
func DetectCashtags(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		d := strings.IndexByte(text[i:], '$')
		if d < 0 {
			break
		}
		i += d
		tag, end := cashtagAt(text, i)
		if end < 0 {
			i++
			continue
		}
		out = appendCashtag(out, tag)
		i = end
	}
	return out
}

// HasCashtag reports whether text carries at least one cashtag. It does not
// allocate.
func HasCashtag(text string) bool {
	for i := 0; i < len(text); i++ {
		d := strings.IndexByte(text[i:], '$')
		if d < 0 {
			return false
		}
		i += d
		if _, end := cashtagAt(text, i); end >= 0 {
			return true
		}
	}
	return false
}

// cashtagAt returns the tag (without '$', original case) starting at text[i]
// and the index after it, or end -1 when text[i] does not start a cashtag.
func cashtagAt(text string, i int) (string, int) {
	if text[i] != '$' || i > 0 && charClass[text[i-1]]&cAlnum != 0 {
		return "", -1
	}
	j := i + 1
	if j >= len(text) || charClass[text[j]]&cAlpha == 0 {
		return "", -1
	}
	for j < len(text) && charClass[text[j]]&cAlnum != 0 {
		j++
		if j-i-1 > CashtagMax {
			return "", -1
		}
	}
	return text[i+1 : j], j
}

func appendCashtag(out []string, tag string) []string {
	for _, s := range out {
		if equalFoldASCII(s, tag) {
			return out
		}
	}
	if out == nil {
		out = make([]string, 0, 2)
	}
	return append(out, upperASCII(tag))
}

// upperASCII returns s in upper case, without allocating when it already is.
func upperASCII(s string) string {
	i := 0
	for i < len(s) && !(s[i] >= 'a' && s[i] <= 'z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}
