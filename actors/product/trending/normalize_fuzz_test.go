package trending

import (
	"slices"
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
)

// FuzzNormalize: client category lists never panic and give known slugs
// only, once each, in canonical order; Normalize is idempotent.
func FuzzNormalize(f *testing.F) {
	f.Add("crypto,News, sports ,weather,crypto")
	f.Add("")
	f.Add("\xff,AI")
	f.Fuzz(func(t *testing.T, csv string) {
		out := Normalize(strings.Split(csv, ","))
		if out == nil {
			t.Fatal("nil list")
		}
		last := -1
		for _, s := range out {
			i := slices.Index(protocol.TrendingSlugs, s)
			if i <= last {
				t.Fatalf("%q: %v not canonical", csv, out)
			}
			last = i
		}
		if again := Normalize(out); !slices.Equal(again, out) {
			t.Fatalf("not idempotent: %v -> %v", out, again)
		}
	})
}
