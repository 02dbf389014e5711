package b2b

import "github.com/alertd/alertd/protocol"

// Mentions are the handles a post mentions: the payload's list when it has
// one, else the @handles of its text (spec 2: `mentions` may be empty even
// when the post mentions accounts). Never nil.
func Mentions(t *protocol.Tweet) []string {
	if len(t.Mentions) > 0 {
		return append([]string(nil), t.Mentions...)
	}
	return MentionsInText(t.Text)
}

// MentionsInText returns the @handles of text in order, each once, as
// written: an '@' not preceded by a handle character or another '@', then 1
// to 50 letters, digits or underscores.
func MentionsInText(text string) []string {
	out := []string{}
	seen := map[string]bool{}
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && (handleChar(text[i-1]) || text[i-1] == '@')) {
			continue
		}
		j := i + 1
		for j < len(text) && handleChar(text[j]) {
			j++
		}
		if n := j - i - 1; n >= 1 && n <= 50 && (j == len(text) || text[j] != '@') {
			h := text[i+1 : j]
			if key := protocol.NormalizeHandle(h); !seen[key] {
				seen[key] = true
				out = append(out, h)
			}
		}
		i = j - 1
	}
	return out
}

func handleChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
