package telegram

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

func TestParseCommand(t *testing.T) {
	for _, c := range []struct {
		text, bot string
		name      string
		args      []string
		ok        bool
	}{
		{"/start", "b", "start", []string{}, true},
		{"/Track  @a   b\tc", "b", "track", []string{"@a", "b", "c"}, true},
		{"/track@mybot a", "MyBot", "track", []string{"a"}, true},
		{"/track@other a", "mybot", "", nil, false},
		{"/track@any a", "", "track", []string{"a"}, true},
		{"track a", "b", "", nil, false},
		{"/", "b", "", nil, false},
		{"/ä", "b", "", nil, false},
		{"/" + strings.Repeat("x", 33), "b", "", nil, false},
		{"/keywords h\nmoon  lambo", "b", "keywords", []string{"h", "moon", "lambo"}, true},
	} {
		name, args, ok := ParseCommand(c.text, c.bot)
		if ok != c.ok || name != c.name || (ok && fmt.Sprint(args) != fmt.Sprint(c.args)) {
			t.Errorf("ParseCommand(%q, %q) = %q %q %v, want %q %q %v", c.text, c.bot, name, args, ok, c.name, c.args, c.ok)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/start", "/track@bot a b", "/keywords h  w", "/@", "/a@", "hello", "/x\u00a0y"} {
		f.Add(s, "bot")
	}
	f.Fuzz(func(t *testing.T, text, bot string) {
		name, args, ok := ParseCommand(text, bot)
		if !ok {
			return
		}
		if name == "" || len(name) > 32 || name != strings.ToLower(name) || !strings.HasPrefix(text, "/") {
			t.Fatalf("ParseCommand(%q) = %q", text, name)
		}
		for _, a := range args {
			if a == "" || strings.IndexFunc(a, unicode.IsSpace) >= 0 {
				t.Fatalf("argument %q of %q", a, text)
			}
		}
	})
}
