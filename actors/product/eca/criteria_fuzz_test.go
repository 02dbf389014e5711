package eca

import (
	"testing"

	"github.com/alertd/alertd/protocol"
)

// FuzzCriteria: client criteria never panic; valid criteria match a token
// launched with exactly those values, and the index finds every match.
func FuzzCriteria(f *testing.F) {
	f.Add("$WIF", "Dog Wif Hat", "", "")
	f.Add("", "", "", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	f.Add(" ſol ", "KELVIN", "mint", "")
	f.Add("\xff", "\x00", "", "x")
	f.Fuzz(func(t *testing.T, ticker, name, contract, creator string) {
		c := Criteria{Ticker: ticker, TokenName: name, ContractAddress: contract, CreatorAddress: creator}
		c.Normalize()
		if c.Validate() != nil {
			return
		}
		l := &protocol.LaunchpadObs{EventType: protocol.LaunchTokenLaunched, Mint: c.ContractAddress, Creator: c.CreatorAddress,
			TokenSymbol: c.Ticker, TokenName: c.TokenName}
		mt, ok := MatchType(c, l)
		if !ok {
			t.Fatalf("%+v does not match its own token", c)
		}
		keys := map[string]bool{}
		for _, k := range launchKeys(l) {
			keys[k] = true
		}
		found := false
		for _, k := range c.indexKeys() {
			found = found || keys[k]
		}
		if !found {
			t.Fatalf("%+v matches (%s) but the index would not find it", c, mt)
		}
	})
}
