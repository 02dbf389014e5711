package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// trendingTests hold the store to persistence.TrendingStore.
var trendingTests = []test{
	{"trending categories", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		got, err := s.TrendingCategories(ctx, "a1")
		must(t, "TrendingCategories before any", err)
		if got != nil {
			t.Fatalf("categories before any = %v, want nil", got)
		}
		must(t, "PutTrendingCategories", s.PutTrendingCategories(ctx, "a1", []string{"crypto", "news"}, at(0)))
		got, err = s.TrendingCategories(ctx, "a1")
		must(t, "TrendingCategories", err)
		if fmt.Sprint(got) != "[crypto news]" {
			t.Fatalf("categories = %v", got)
		}
		must(t, "PutTrendingCategories empty", s.PutTrendingCategories(ctx, "a1", nil, at(time.Second)))
		got, err = s.TrendingCategories(ctx, "a1")
		must(t, "TrendingCategories after clear", err)
		if got != nil {
			t.Fatalf("categories after clear = %v, want nil", got)
		}
	}},
}
