package sim

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"github.com/alertd/alertd/protocol"
)

// Kind indices, in the order of protocol.Kinds.
const (
	kUser = iota
	kPost
	kPostDeleted
	kFollowing
	kFollowersNew
	kCommunities
	kEngagement
	kTrending
	kLaunchpad
	kCallout
	kMarketCap
	numKinds
)

var kindNames = [numKinds]string{
	protocol.KindUser, protocol.KindPost, protocol.KindPostDeleted, protocol.KindFollowing,
	protocol.KindFollowersNew, protocol.KindCommunities, protocol.KindEngagement,
	protocol.KindTrending, protocol.KindLaunchpad, protocol.KindCallout, protocol.KindMarketCap,
}

// DefaultMix returns the share (in percent) of each kind in the steady stream
// after the start-up snapshots. Post updates (re-observations of a reply,
// quote or long post with fuller context) come on top, as posts.
func DefaultMix() map[string]float64 { return maps.Clone(defaultMix) }

var defaultMix = map[string]float64{
	protocol.KindPost:         58,
	protocol.KindEngagement:   10,
	protocol.KindUser:         5,
	protocol.KindFollowing:    4,
	protocol.KindFollowersNew: 4,
	protocol.KindTrending:     4,
	protocol.KindLaunchpad:    4,
	protocol.KindMarketCap:    4,
	protocol.KindCommunities:  3,
	protocol.KindPostDeleted:  3,
	protocol.KindCallout:      1,
}

// postRec is a post the world remembers (parents, quotes, engagement, deletes).
type postRec struct {
	id      string
	author  int
	tb      *textB
	media   []protocol.Media
	conv    string
	created int64

	likes, rts, replies, quotes, bookmarks, views int64
	deleted                                       bool
}

type pendingLine struct {
	due  int64
	id   string // post id
	line []byte
}

type trendRec struct {
	cat   string
	tweet protocol.TrendingTweet
}

const ringSize = 1024

// generator produces the observation stream; it is not safe for concurrent use.
type generator struct {
	w       *world
	r       rng
	now     func() time.Time
	rate    float64
	seq     int64
	boot    int
	lastID  int64
	mix     weights
	ring    []*postRec // oldest first, at most ringSize
	pending []pendingLine
	trends  []trendRec
	updates int64 // post re-observations produced
}

func newGenerator(seed int64, users int, rate float64, now func() time.Time, mix map[string]float64) *generator {
	r := newRNG(seed)
	g := &generator{r: r, now: now, rate: rate}
	g.w = newWorld(r, users, now().UnixMilli())
	mw := make([]float64, numKinds)
	for i, k := range kindNames {
		mw[i] = max(mix[k], 0)
	}
	g.mix = newWeights(mw)
	if w := g.mix[len(g.mix)-1]; !(w > 0) || math.IsInf(w, 0) {
		panic("sim: Config.Mix gives no kind a positive finite weight")
	}
	return g
}

// encode writes v as an observation line of kind.
func encode(kind string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil || len(b) < 2 || b[0] != '{' {
		panic("sim: cannot encode " + kind + " observation")
	}
	out := make([]byte, 0, len(b)+len(kind)+12)
	out = append(out, `{"kind":"`...)
	out = append(out, kind...)
	out = append(out, '"')
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...)
}

// next returns the next observation and its kind index.
func (g *generator) next() (int, []byte) {
	g.seq++
	n := len(g.w.users)
	if g.boot < 3*n {
		i := g.boot % n
		phase := g.boot / n
		g.boot++
		switch phase {
		case 0:
			return kUser, encode(protocol.KindUser, g.w.users[i].obs())
		case 1:
			return kFollowing, g.followingObs(i)
		default:
			return kCommunities, g.communitiesObs(i)
		}
	}
	if len(g.pending) > 0 && g.pending[0].due <= g.seq {
		p := g.pending[0]
		g.pending = g.pending[1:]
		g.updates++
		return kPost, p.line
	}
	nowMs := g.now().UnixMilli()
	switch k := g.mix.pick(g.r); k {
	case kPost:
		return kPost, g.genPost(nowMs)
	case kPostDeleted:
		return g.genDeleted(nowMs)
	case kUser:
		return kUser, g.genUserUpdate(nowMs)
	case kFollowing:
		return kFollowing, g.genFollowing(nowMs)
	case kFollowersNew:
		return kFollowersNew, g.genFollowersNew(nowMs)
	case kCommunities:
		return kCommunities, g.genCommunities()
	case kEngagement:
		return g.genEngagement(nowMs)
	case kTrending:
		return kTrending, g.genTrending(nowMs)
	case kLaunchpad:
		return kLaunchpad, g.genLaunchpad()
	case kCallout:
		return kCallout, g.genCallout()
	default:
		return g.genMarketCap()
	}
}

// ---- posts ----

func (g *generator) pickAuthor() int {
	i := g.w.byPosting.pick(g.r)
	for tries := 0; g.w.users[i].suspended && tries < 10; tries++ {
		i = g.w.byPosting.pick(g.r)
	}
	return i
}

// pickRecent returns a remembered, undeleted post, mostly a recent one.
func (g *generator) pickRecent() *postRec {
	n := len(g.ring)
	if n == 0 {
		return nil
	}
	for tries := 0; tries < 12; tries++ {
		var p *postRec
		if g.r.chance(0.7) {
			p = g.ring[n-1-g.r.IntN(min(n, 64))]
		} else {
			p = g.ring[g.r.IntN(n)]
		}
		if !p.deleted {
			return p
		}
	}
	return nil
}

func (g *generator) remember(p *postRec) {
	if len(g.ring) >= ringSize {
		copy(g.ring, g.ring[1:])
		g.ring = g.ring[:len(g.ring)-1]
	}
	g.ring = append(g.ring, p)
	u := &g.w.users[p.author]
	if len(u.recent) >= 16 {
		u.recent = slices.Delete(u.recent, 0, 1)
	}
	u.recent = append(u.recent, p.id)
}

// detectionDelay is how long after creation the upstream saw a post: a few
// hundred ms, sometimes seconds, rarely (late delivery) minutes.
func (g *generator) detectionDelay() int64 {
	x := g.r.Float64()
	switch {
	case x < 0.90:
		return int64(g.r.between(150, 900))
	case x < 0.99:
		return int64(g.r.between(1000, 5000))
	case x < 0.995:
		return int64(g.r.between(8000, 25000))
	default:
		return int64(g.r.between(40000, 600000))
	}
}

// tweetID is a snowflake for ms, strictly above every id handed out before.
func (g *generator) tweetID(ms int64) string {
	id := snowflakeAt(g.r, ms)
	if id <= g.lastID {
		id = g.lastID + 1 + int64(g.r.IntN(64))
	}
	g.lastID = id
	return strconv.FormatInt(id, 10)
}

func (g *generator) author(i int) protocol.TweetAuthor {
	u := &g.w.users[i]
	aff := u.affiliation
	if aff == nil {
		aff = json.RawMessage("null")
	}
	return protocol.TweetAuthor{
		ID: u.id, Handle: u.handle, Name: u.name, Avatar: u.avatar, Description: u.bio,
		Verification: protocol.Verification{IsVerified: u.verified, Type: u.vtype},
		Affiliation:  aff,
		Stats:        protocol.AuthorStats{Followers: u.followers, Following: int64(len(u.follows) + len(u.ext))},
	}
}

func (g *generator) quoteOf(p *postRec, sparse bool) *protocol.QuotedTweet {
	u := &g.w.users[p.author]
	q := &protocol.QuotedTweet{ID: p.id, Text: p.tb.text(), Author: protocol.QuotedAuthor{Handle: u.handle, Name: strp(u.name), Avatar: u.avatar}}
	if !sparse {
		q.Media = p.media
	} else {
		q.Author.Name = nil
	}
	return q
}

func (g *generator) media() []protocol.Media {
	n := 0
	switch x := g.r.Float64(); {
	case x < 0.25:
		n = 1
	case x < 0.30:
		n = g.r.between(2, 4)
	}
	m := make([]protocol.Media, n)
	for i := range m {
		m[i] = protocol.Media{Type: "photo", URL: "https://pbs.example.com/media/" + g.r.alnum(15) + ".jpg"}
	}
	return m
}

// tokenForPost is a recent launch (so posts, CA Search and ECA line up) or a
// fresh token.
func (g *generator) tokenForPost() (name, sym, mint string) {
	if n := len(g.w.tokens); n > 0 && g.r.chance(0.7) {
		t := g.w.tokens[n-1-g.r.IntN(min(n, 40))]
		return t.name, t.sym, t.mint
	}
	tn := pick(g.r, tokenNames)
	return tn.name, tn.sym, g.r.solAddr()
}

// compose writes the body of a post by author ai.
func (g *generator) compose(t *textB, ai int) {
	r := g.r
	u := &g.w.users[ai]
	wShill, wEVM, wMarket, wChat, wNews, wMention := 28.0, 7.0, 20.0, 27.0, 7.0, 11.0
	switch u.primary {
	case "coin", "kols", "memes", "traders", "perp_coins", "solana":
		wShill += 20
	case "news":
		wNews += 30
	case "ethereum", "defi":
		wEVM += 10
	}
	switch newWeights([]float64{wShill, wEVM, wMarket, wChat, wNews, wMention}).pick(r) {
	case 0:
		_, sym, mint := g.tokenForPost()
		switch r.IntN(4) {
		case 0:
			t.s(pick(r, shillIntros) + " ")
			t.cashtag(sym)
			if c := pick(r, shillComments); c != "" {
				t.s(" " + c)
			}
			t.s("\nCA: ")
			t.addr(mint)
		case 1:
			t.cashtag(sym)
			t.s(" " + pick(r, marketComments) + "\n\n")
			t.addr(mint)
		case 2:
			t.s(pick(r, shillIntros) + " ")
			t.cashtag(sym)
			t.s(" ca ")
			t.addr(mint)
			t.s(" ")
			t.url(r, "https://pump.fun/coin/"+mint)
		default:
			t.addr(mint)
			if c := pick(r, shillComments); c != "" {
				t.s("\n" + c)
			}
		}
		if r.chance(0.2) {
			t.s(" ")
			t.hashtag(pick(r, []string{"Solana", "memecoin", "pumpfun", "SOL"}))
		}
	case 1:
		t.s(pick(r, shillIntros) + " ")
		t.cashtag(pick(r, tokenNames).sym)
		t.s(pick(r, []string{" on base\n", " (eth) ca: ", " bsc\n", " arb "}))
		t.addr(g.r.evmAddr())
	case 2:
		t.cashtag(pick(r, majorTickers))
		t.s(" " + pick(r, marketComments))
		if r.chance(0.4) {
			t.s(", ")
			t.cashtag(pick(r, majorTickers))
			t.s(" next")
		}
	case 3:
		t.s(pick(r, chatter))
		if r.chance(0.25) {
			t.s(" ")
			t.hashtag(pick(r, hashtagPool))
		}
	case 4:
		h := pick(r, headlines)
		t.s(h + " ")
		slug := strings.ToLower(strings.Join(strings.Fields(h), "-"))
		slug = strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
				return c
			}
			return -1
		}, slug)
		t.url(r, "https://news.example.com/"+slug+"-"+strconv.Itoa(r.between(1000, 99999)))
		if r.chance(0.3) {
			t.s(" ")
			t.hashtag(pick(r, hashtagPool))
		}
	default:
		j := g.w.byFame.pick(r)
		if j == ai {
			j = (j + 1) % len(g.w.users)
		}
		t.s(pick(r, []string{"thoughts on this ", "agree with ", "big if true ", "shoutout to ", "cc "}))
		t.mention(g.w.users[j].handle)
		t.s(" " + pick(r, chatter))
	}
}

func (g *generator) filler(t *textB) {
	r := g.r
	for target := r.between(300, 900); len(t.b) < target; {
		t.s(". " + pick(r, fillerPool))
	}
}

func (g *generator) genPost(nowMs int64) []byte {
	r := g.r
	ai := g.pickAuthor()
	created := nowMs - g.detectionDelay()
	id := g.tweetID(created)
	typ := protocol.PostTypePost
	parent := g.pickRecent()
	if parent != nil {
		switch x := r.Float64(); {
		case x < 0.25:
			typ = protocol.PostTypeReply
		case x < 0.37:
			typ = protocol.PostTypeQuote
		case x < 0.50:
			typ = protocol.PostTypeRepost
		}
	}
	tw := protocol.Tweet{
		ID: id, CreatedAt: created, Type: typ, Author: g.author(ai), ConversationID: id,
		PossiblySensitive: r.chance(0.02),
	}
	t := &textB{}
	var media []protocol.Media
	var full, first *protocol.QuotedTweet
	partial, long := false, false
	switch typ {
	case protocol.PostTypePost:
		g.compose(t, ai)
		long = r.chance(0.03)
		if long {
			g.filler(t)
		}
		media = g.media()
	case protocol.PostTypeReply:
		ph := g.w.users[parent.author].handle
		t.mention(ph)
		t.s(" ")
		if r.chance(0.5) {
			t.s(pick(r, []string{"agreed", "this", "lfg", "source?", "ngmi", "based", "wen", "so true", "huge", "fr"}))
		} else {
			g.compose(t, ai)
		}
		tw.InReplyTo = &protocol.InReplyTo{TweetID: parent.id, User: ph}
		tw.ConversationID = parent.conv
		media = g.media()
		full = g.quoteOf(parent, false)
		partial = r.chance(0.12)
	case protocol.PostTypeQuote:
		g.compose(t, ai)
		media = g.media()
		full = g.quoteOf(parent, false)
		partial = r.chance(0.1)
	case protocol.PostTypeRepost:
		t.s("RT ")
		t.mention(g.w.users[parent.author].handle)
		t.s(": ")
		t.appendFrom(parent.tb)
		media = parent.media
		full = g.quoteOf(parent, false)
	}
	if r.chance(0.08) {
		t.s(pick(r, []string{" 🚀", " 🔥", " 👀", " 😂", " 🫡"}))
	}
	if media == nil {
		media = []protocol.Media{}
	}
	tw.Media = media
	if len(media) > 0 && typ != protocol.PostTypeRepost && r.chance(0.3) {
		var ocr string
		if _, sym, mint := g.tokenForPost(); r.chance(0.5) {
			ocr = "$" + sym + "\nCA: " + mint
		} else {
			ocr = pick(r, []string{"4H chart", "BUY THE DIP", "gm", "TVL up only", "new ATH"})
		}
		tw.OCRText = &ocr
	}
	if r.chance(0.2) {
		tw.Metrics = protocol.TweetMetrics{}
	} else {
		z := int64(0)
		tw.Metrics = protocol.TweetMetrics{Likes: i64p(int64(r.IntN(4))), Retweets: &z, Replies: &z, Quotes: &z, Views: strp(strconv.Itoa(r.IntN(60)))}
	}
	rec := &postRec{id: id, author: ai, tb: t, media: media, conv: tw.ConversationID, created: created}
	if tw.Metrics.Likes != nil {
		rec.likes = *tw.Metrics.Likes
	}
	if typ != protocol.PostTypeRepost {
		g.remember(rec)
	}

	// Mentions may be null or empty even when the text mentions accounts.
	mentionsMode := 0
	if len(t.mentions) > 0 {
		switch x := r.Float64(); {
		case x < 0.05:
			mentionsMode = 1
		case x < 0.10:
			mentionsMode = 2
		}
	}
	fill := func(tb *textB, q *protocol.QuotedTweet) []byte {
		tw.Text = tb.text()
		tw.Cashtags = tb.cashtags()
		switch mentionsMode {
		case 1:
			tw.Mentions = nil
		case 2:
			tw.Mentions = []string{}
		default:
			tw.Mentions = slices.Clone(nonNil(tb.mentions))
		}
		tw.Entities = tb.entities()
		tw.QuotedTweet = q
		return encode(protocol.KindPost, &tw)
	}
	switch {
	case partial:
		// First seen without the parent's body, then again with it.
		if typ == protocol.PostTypeQuote {
			first = &protocol.QuotedTweet{ID: parent.id, Text: "", Author: protocol.QuotedAuthor{Handle: full.Author.Handle, Avatar: full.Author.Avatar}}
		}
		firstLine := fill(t, first)
		upd := full
		if r.chance(0.3) {
			upd = g.quoteOf(parent, true)
		}
		g.schedule(id, fill(t, upd))
		return firstLine
	case long:
		firstLine := fill(t.truncated(270), full)
		g.schedule(id, fill(t, full))
		return firstLine
	default:
		return fill(t, full)
	}
}

// schedule queues a re-observation a few seconds (at the configured rate) later.
func (g *generator) schedule(id string, line []byte) {
	rate := g.rate
	if rate <= 0 {
		rate = DefaultRate
	}
	due := g.seq + max(1, int64(rate*g.r.uniform(1, 5)))
	i := len(g.pending)
	for i > 0 && g.pending[i-1].due > due {
		i--
	}
	g.pending = slices.Insert(g.pending, i, pendingLine{due: due, id: id, line: line})
}

var fillerPool = append(append([]string(nil), chatter...), marketComments...)
