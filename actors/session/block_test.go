package session

import (
	"net/netip"
	"testing"
)

func TestBlockAddr(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.5":          "203.0.113.5",
		"::ffff:203.0.113.5":   "203.0.113.5",
		"2001:db8:1:2::1":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9": "2001:db8:1:2::/64",
	} {
		if got := BlockAddr(netip.MustParseAddr(in)); got != want {
			t.Errorf("BlockAddr(%s) = %s, want %s", in, got, want)
		}
	}
	if BlockAddr(netip.Addr{}) != "" {
		t.Error("an unknown address has a block key")
	}
}
