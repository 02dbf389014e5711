package xapifake

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Demo helpers: a small world of accounts and plausible posts, for
// `alertd connector-demo x` and the bench.

var demoWords = []string{"gm", "wagmi", "chart", "looks", "ready", "send", "it", "new", "launch", "community", "building", "ship", "alpha", "soon", "lfg"}

// SeedAccounts adds n accounts named demo_000... and returns them.
func (s *Server) SeedAccounts(n int) []User {
	out := make([]User, n)
	for i := range out {
		h := fmt.Sprintf("demo_%03d", i)
		out[i] = User{ID: fmt.Sprint(1_700_000_000 + i), Username: h, Name: "Demo " + strings.ToUpper(h[5:]),
			Description: "a synthetic account of the demo", ProfileImageURL: "https://pbs.twimg.com/profile_images/demo/" + h + "_normal.jpg",
			Verified: i%3 == 0, VerifiedType: []string{"blue", "none", "none"}[i%3],
			PublicMetrics: UserMetrics{FollowersCount: int64(100 + 37*i), FollowingCount: int64(10 + i)}}
		s.AddUser(out[i])
	}
	return out
}

// RandomPost is a post of author with id, created at now: a few words, a
// cashtag and a hashtag with their entities, public metrics.
func RandomPost(r *rand.Rand, author User, id string, now time.Time) Post {
	var b strings.Builder
	for range 3 + r.IntN(6) {
		b.WriteString(demoWords[r.IntN(len(demoWords))])
		b.WriteByte(' ')
	}
	sym := string(rune('A'+r.IntN(26))) + string(rune('A'+r.IntN(26))) + string(rune('A'+r.IntN(26)))
	start := b.Len()
	b.WriteString("$" + sym + " #memes")
	text := b.String()
	return Post{ID: id, Text: text, AuthorID: author.ID, ConversationID: id, EditHistoryTweetIDs: []string{id},
		CreatedAt: now.UTC().Format("2006-01-02T15:04:05.000Z"), Lang: "en",
		Entities: &Entities{Cashtags: []TagEntity{{Start: start, End: start + 4, Tag: sym}},
			Hashtags: []TagEntity{{Start: start + 5, End: start + 11, Tag: "memes"}}},
		PublicMetrics: &PostMetrics{LikeCount: int64(r.IntN(50)), RetweetCount: int64(r.IntN(10)), ImpressionCount: int64(r.IntN(5000))}}
}
