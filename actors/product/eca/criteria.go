package eca

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alertd/alertd/protocol"
)

// Criteria are what a watchlist entry looks for; an empty field is unset.
type Criteria struct {
	Ticker          string
	TokenName       string
	ContractAddress string
	CreatorAddress  string
}

// Match types, most specific first: the order in which MatchType tries them.
const (
	MatchContractAddress = "contract_address"
	MatchCreatorAddress  = "creator_address"
	MatchTicker          = "ticker"
	MatchTokenName       = "token_name"
)

// MaxField is the longest criterion, in characters.
const MaxField = 100

// Normalize trims the fields and drops one leading '$' of the ticker
// ("$WIF" watches the ticker WIF).
func (c *Criteria) Normalize() {
	c.Ticker = strings.TrimPrefix(strings.TrimSpace(c.Ticker), "$")
	c.TokenName = strings.TrimSpace(c.TokenName)
	c.ContractAddress = strings.TrimSpace(c.ContractAddress)
	c.CreatorAddress = strings.TrimSpace(c.CreatorAddress)
}

// Validate applies spec 3's rule to normalized criteria: either
// creator_address alone, or any of ticker, token_name and contract_address;
// at least one.
func (c Criteria) Validate() error {
	others := c.Ticker != "" || c.TokenName != "" || c.ContractAddress != ""
	switch {
	case c.CreatorAddress != "" && others:
		return errors.New("creator_address must be given alone, without ticker, token_name or contract_address")
	case c.CreatorAddress == "" && !others:
		return errors.New("give creator_address, or any of ticker, token_name and contract_address")
	}
	for _, f := range []struct{ name, v string }{{"ticker", c.Ticker}, {"token_name", c.TokenName},
		{"contract_address", c.ContractAddress}, {"creator_address", c.CreatorAddress}} {
		if utf8.RuneCountInString(f.v) > MaxField {
			return fmt.Errorf("%s is longer than %d characters", f.name, MaxField)
		}
	}
	return nil
}

// MatchType reports whether launched token l matches c, and by which field:
// the contract address is the mint, the creator address the creator, the
// ticker the token symbol and the token name the name, the last two
// case-insensitively. Any set field matching is a match; when several do, the
// most specific one names the match.
func MatchType(c Criteria, l *protocol.LaunchpadObs) (string, bool) {
	switch {
	case c.ContractAddress != "" && c.ContractAddress == l.Mint:
		return MatchContractAddress, true
	case c.CreatorAddress != "" && c.CreatorAddress == l.Creator:
		return MatchCreatorAddress, true
	case c.Ticker != "" && strings.EqualFold(c.Ticker, l.TokenSymbol):
		return MatchTicker, true
	case c.TokenName != "" && strings.EqualFold(c.TokenName, strings.TrimSpace(l.TokenName)):
		return MatchTokenName, true
	}
	return "", false
}

// indexKeys are the lookup keys of criteria in the watchlist's index.
func (c Criteria) indexKeys() []string {
	var out []string
	if c.ContractAddress != "" {
		out = append(out, "c:"+c.ContractAddress)
	}
	if c.CreatorAddress != "" {
		out = append(out, "w:"+c.CreatorAddress)
	}
	if c.Ticker != "" {
		out = append(out, "t:"+fold(c.Ticker))
	}
	if c.TokenName != "" {
		out = append(out, "n:"+fold(c.TokenName))
	}
	return out
}

// launchKeys are the index keys a launched token can match.
func launchKeys(l *protocol.LaunchpadObs) []string {
	return []string{"c:" + l.Mint, "w:" + l.Creator, "t:" + fold(l.TokenSymbol),
		"n:" + fold(strings.TrimSpace(l.TokenName))}
}

// fold maps strings that strings.EqualFold holds equal to one key.
func fold(s string) string { return strings.ToLower(strings.ToUpper(s)) }
