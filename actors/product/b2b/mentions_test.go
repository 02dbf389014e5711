package b2b

import (
	"slices"
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
)

func TestMentionsInText(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"", []string{}},
		{"no mentions here", []string{}},
		{"@degenmike agreed", []string{"degenmike"}},
		{"gm @Alice and @bob_2, also @alice again", []string{"Alice", "bob_2"}},
		{"mail me at me@example.com", []string{}},
		{"@ alone and @@double", []string{}},
		{"(@paren) @end", []string{"paren", "end"}},
		{"@a@b", []string{}},
		{"@x_1", []string{"x_1"}},
		{"@" + strings.Repeat("a", 50) + " @" + strings.Repeat("b", 51), []string{strings.Repeat("a", 50)}},
	} {
		if got := MentionsInText(c.text); !slices.Equal(got, c.want) || got == nil {
			t.Errorf("MentionsInText(%q) = %#v, want %#v", c.text, got, c.want)
		}
	}
}

func TestMentionsPrefersThePayload(t *testing.T) {
	tw := &protocol.Tweet{Text: "@a hi", Mentions: []string{"b"}}
	if got := Mentions(tw); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Mentions = %v, want the payload's [b]", got)
	}
	tw.Mentions = nil
	if got := Mentions(tw); !slices.Equal(got, []string{"a"}) {
		t.Errorf("Mentions = %v, want [a] from the text", got)
	}
}
