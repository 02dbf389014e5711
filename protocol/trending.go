package protocol

// TrendingSlugs are the 24 Trending Alerts categories (spec 3 shows crypto,
// news, sports, music and technology; the other 19 are ours). The synthetic
// upstream (upstream/sim TrendingCategories) uses the same list, so demo data
// lands in real categories.
var TrendingSlugs = []string{
	"crypto", "news", "sports", "music", "technology", "politics", "business",
	"finance", "entertainment", "gaming", "science", "health", "movies",
	"television", "celebrities", "fashion", "food", "travel", "ai", "memes",
	"nft", "defi", "esports", "anime",
}

var trendingSlugSet = func() map[string]bool {
	m := make(map[string]bool, len(TrendingSlugs))
	for _, s := range TrendingSlugs {
		m[s] = true
	}
	return m
}()

// IsTrendingSlug reports whether slug (already normalized, see
// NormalizeCategory) is one of the 24 categories.
func IsTrendingSlug(slug string) bool { return trendingSlugSet[slug] }
