package session

import (
	"slices"
	"testing"
)

func TestHandleSet(t *testing.T) {
	var s handleSet
	if s.add("a") {
		t.Fatal("a closed set took a handle")
	}
	if got := s.fill([]string{"c", "a", "c", "b"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("fill %v", got)
	}
	if s.add("b") || !s.add("ab") || !slices.Equal(s.hs, []string{"a", "ab", "b", "c"}) {
		t.Fatalf("add: %v", s.hs)
	}
	if !s.remove("a") || s.remove("a") || !slices.Equal(s.hs, []string{"ab", "b", "c"}) {
		t.Fatalf("remove: %v", s.hs)
	}
	if got := s.close(); !slices.Equal(got, []string{"ab", "b", "c"}) || s.add("z") || s.open {
		t.Fatalf("close: %v, then %v", got, s.hs)
	}
}
