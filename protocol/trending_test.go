package protocol

import "testing"

func TestTrendingSlugs(t *testing.T) {
	if len(TrendingSlugs) != TrendingCategories {
		t.Fatalf("%d slugs, want %d", len(TrendingSlugs), TrendingCategories)
	}
	seen := map[string]bool{}
	for _, s := range TrendingSlugs {
		if seen[s] {
			t.Errorf("slug %q twice", s)
		}
		seen[s] = true
		if NormalizeCategory(s) != s {
			t.Errorf("slug %q is not normalized", s)
		}
		if !IsTrendingSlug(s) {
			t.Errorf("IsTrendingSlug(%q) = false", s)
		}
	}
	for _, s := range []string{"crypto", "news", "sports", "music", "technology"} {
		if !seen[s] {
			t.Errorf("spec slug %q missing", s)
		}
	}
	for _, s := range []string{"", "Crypto", "weather", "crypto "} {
		if IsTrendingSlug(s) {
			t.Errorf("IsTrendingSlug(%q) = true", s)
		}
	}
}
