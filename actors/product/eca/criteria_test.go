package eca

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
)

func TestValidate(t *testing.T) {
	long := strings.Repeat("x", MaxField+1)
	for _, c := range []struct {
		name string
		c    Criteria
		ok   bool
	}{
		{"creator alone", Criteria{CreatorAddress: "W"}, true},
		{"ticker", Criteria{Ticker: "WIF"}, true},
		{"token name", Criteria{TokenName: "Dog Wif Hat"}, true},
		{"contract", Criteria{ContractAddress: "M"}, true},
		{"ticker, name and contract", Criteria{Ticker: "WIF", TokenName: "Dog", ContractAddress: "M"}, true},
		{"nothing", Criteria{}, false},
		{"creator with ticker", Criteria{CreatorAddress: "W", Ticker: "WIF"}, false},
		{"creator with contract", Criteria{CreatorAddress: "W", ContractAddress: "M"}, false},
		{"too long", Criteria{TokenName: long}, false},
		{"longest", Criteria{TokenName: long[1:]}, true},
	} {
		if err := c.c.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

func TestNormalize(t *testing.T) {
	c := Criteria{Ticker: " $WIF ", TokenName: "  Dog Wif Hat ", ContractAddress: " M ", CreatorAddress: "\tW\n"}
	c.Normalize()
	if c != (Criteria{Ticker: "WIF", TokenName: "Dog Wif Hat", ContractAddress: "M", CreatorAddress: "W"}) {
		t.Fatalf("normalized %+v", c)
	}
	c = Criteria{Ticker: "   "}
	c.Normalize()
	if c.Validate() == nil {
		t.Fatal("a blank ticker counts as a criterion")
	}
}

func TestMatchType(t *testing.T) {
	l := &protocol.LaunchpadObs{EventType: protocol.LaunchTokenLaunched, Mint: "MINT1", Creator: "CREATOR1",
		TokenSymbol: "WiF2", TokenName: "Dog Wif Hat Two"}
	for _, c := range []struct {
		name string
		c    Criteria
		want string
	}{
		{"ticker, any case", Criteria{Ticker: "wif2"}, MatchTicker},
		{"token name, any case", Criteria{TokenName: "dog wif hat two"}, MatchTokenName},
		{"contract address", Criteria{ContractAddress: "MINT1"}, MatchContractAddress},
		{"creator address", Criteria{CreatorAddress: "CREATOR1"}, MatchCreatorAddress},
		{"contract address is case-sensitive", Criteria{ContractAddress: "mint1"}, ""},
		{"creator address is case-sensitive", Criteria{CreatorAddress: "creator1"}, ""},
		{"ticker is whole", Criteria{Ticker: "WIF"}, ""},
		{"name is whole", Criteria{TokenName: "Dog Wif Hat"}, ""},
		{"any field: the name matches", Criteria{Ticker: "BONK", TokenName: "Dog Wif Hat Two"}, MatchTokenName},
		{"most specific names the match", Criteria{Ticker: "WIF2", TokenName: "Dog Wif Hat Two", ContractAddress: "MINT1"}, MatchContractAddress},
		{"ticker before name", Criteria{Ticker: "WIF2", TokenName: "Dog Wif Hat Two"}, MatchTicker},
		{"nothing matches", Criteria{Ticker: "BONK", ContractAddress: "MINT2"}, ""},
	} {
		got, ok := MatchType(c.c, l)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: MatchType = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}

// TestIndexKeys: whatever MatchType accepts, the index finds.
func TestIndexKeys(t *testing.T) {
	l := &protocol.LaunchpadObs{Mint: "M", Creator: "C", TokenSymbol: "ſOL", TokenName: " Kelvin K "}
	keys := map[string]bool{}
	for _, k := range launchKeys(l) {
		keys[k] = true
	}
	for _, c := range []Criteria{{Ticker: "SOL"}, {Ticker: "sol"}, {TokenName: "kelvin k"}, {ContractAddress: "M"}, {CreatorAddress: "C"}} {
		if _, ok := MatchType(c, l); !ok {
			t.Errorf("%+v does not match", c)
			continue
		}
		found := false
		for _, k := range c.indexKeys() {
			found = found || keys[k]
		}
		if !found {
			t.Errorf("%+v matches but its keys %v are not among %v", c, c.indexKeys(), launchKeys(l))
		}
	}
}
