package b2b

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
)

// FuzzMentionsInText: post text comes from the upstream; every mention found
// is a valid handle written after an '@' in the text, each once.
func FuzzMentionsInText(f *testing.F) {
	for _, s := range []string{"", "@a", "gm @Alice and @bob_2", "x@y @@z @", "@" + strings.Repeat("a", 60), "\xff@\xfeab"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := MentionsInText(text)
		if got == nil {
			t.Fatalf("nil result")
		}
		seen := map[string]bool{}
		for _, m := range got {
			key := protocol.NormalizeHandle(m)
			if !protocol.ValidHandle(key) || key != strings.ToLower(m) {
				t.Fatalf("%q: mention %q is not a handle", text, m)
			}
			if seen[key] {
				t.Fatalf("%q: mention %q twice", text, m)
			}
			seen[key] = true
			if !strings.Contains(text, "@"+m) {
				t.Fatalf("%q: mention %q not in the text", text, m)
			}
		}
	})
}
