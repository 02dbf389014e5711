package sim

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/protocol"
)

// genDeleted deletes a remembered post; sometimes the deletion is confirmed
// but the post cannot be identified (tweet_id and text null).
func (g *generator) genDeleted(nowMs int64) (int, []byte) {
	r := g.r
	p := g.pickRecent()
	if p == nil || r.chance(0.12) {
		u := &g.w.users[g.pickAuthor()]
		return kPostDeleted, encode(protocol.KindPostDeleted, &protocol.PostDeletedObs{Handle: u.handle})
	}
	p.deleted = true
	// A deleted post is not observed again.
	g.pending = slices.DeleteFunc(g.pending, func(l pendingLine) bool { return l.id == p.id })
	u := &g.w.users[p.author]
	if i := slices.Index(u.recent, p.id); i >= 0 {
		u.recent = slices.Delete(u.recent, i, i+1)
	}
	if i := slices.Index(u.pinned, p.id); i >= 0 {
		u.pinned = slices.Delete(u.pinned, i, i+1)
	}
	return kPostDeleted, encode(protocol.KindPostDeleted, &protocol.PostDeletedObs{
		Handle: u.handle, TweetID: strp(p.id), Text: strp(p.tb.text()),
	})
}

// ---- user snapshots ----

var nameSuffixes = []string{" 🎄", " (🌸, 🌿)", " | on vacation", " 🔜 Denver", " ⚡", " 🐋", " (hiring)"}

func (g *generator) genUserUpdate(nowMs int64) []byte {
	r := g.r
	w := g.w
	var i int
	if r.chance(0.5) {
		i = w.byPosting.pick(r)
	} else {
		i = r.IntN(len(w.users))
	}
	u := &w.users[i]
	// Follower counts move on every snapshot.
	u.followers = max(0, u.followers+int64(float64(u.followers)*r.uniform(-0.001, 0.004))+int64(r.IntN(3)))
	if u.suspended {
		if r.chance(0.6) {
			u.suspended = false
		}
		return encode(protocol.KindUser, u.obs())
	}
	n := 1
	if r.chance(0.15) {
		n = 2
	}
	for range n {
		g.mutateUser(u, nowMs)
	}
	return encode(protocol.KindUser, u.obs())
}

var userFields = newWeights([]float64{
	25, // bio
	12, // name
	15, // avatar
	10, // banner
	8,  // location
	8,  // website
	12, // pinned
	5,  // verified
	3,  // handle
	1,  // suspended
	2,  // categories
})

func (g *generator) mutateUser(u *user, nowMs int64) {
	r := g.r
	w := g.w
	switch userFields.pick(r) {
	case 0:
		old := u.bio
		for tries := 0; u.bio == old && tries < 4; tries++ {
			u.bio = w.newBio(u)
		}
		if u.bio == old {
			u.bio = strings.TrimSpace(old + " | " + pick(r, chatter))
		}
	case 1:
		base := u.name
		for _, s := range nameSuffixes {
			base = strings.TrimSuffix(base, s)
		}
		switch {
		case base != u.name:
			u.name = base
		case u.brand || r.chance(0.6):
			u.name = base + pick(r, nameSuffixes)
		default:
			u.name = pick(r, firstNames) + " " + pick(r, lastNames)
		}
	case 2:
		u.avatar = w.avatarURL(u.id)
	case 3:
		if u.banner != nil && r.chance(0.2) {
			u.banner = nil
		} else {
			u.banner = w.bannerURL(u.id, nowMs)
		}
	case 4:
		if u.location != nil && r.chance(0.2) {
			u.location = nil
		} else {
			l := pick(r, locations)
			if u.location != nil && *u.location == l {
				l += " 🌍"
			}
			u.location = &l
		}
	case 5:
		if u.website != nil && r.chance(0.2) {
			u.website = nil
		} else {
			s := "https://" + u.handle + pick(r, websiteHosts) + pick(r, []string{"", "/links", "/app", "/blog"})
			if u.website != nil && *u.website == s {
				s += "?ref=x"
			}
			u.website = &s
		}
	case 6:
		switch {
		case len(u.recent) > 0 && (len(u.pinned) == 0 || u.pinned[0] != u.recent[len(u.recent)-1]):
			u.pinned = []string{u.recent[len(u.recent)-1]}
		case len(u.pinned) > 0:
			u.pinned = []string{}
		default:
			u.pinned = []string{strconv.FormatInt(snowflakeAt(r, nowMs-int64(r.between(1, 90))*86400000), 10)}
		}
	case 7:
		if u.verified {
			u.verified, u.vtype = false, nil
		} else {
			u.verified, u.vtype = true, strp("blue")
		}
	case 8:
		delete(w.handles, u.handle)
		u.handle = w.newHandle()
	case 9:
		u.suspended = true
	default:
		if len(u.cats) > 0 && r.chance(0.4) {
			u.cats = u.cats[:len(u.cats)-1]
		} else {
			c := pick(r, Categories)
			if !slices.Contains(u.cats, c) {
				u.cats = append(u.cats, c)
			}
		}
		u.primary = ""
		if len(u.cats) > 0 {
			u.primary = protocol.NormalizeCategory(u.cats[0])
		}
	}
}

// ---- following ----

func (g *generator) genFollowing(nowMs int64) []byte {
	r := g.r
	w := g.w
	var i int
	if r.chance(0.6) {
		i = w.byPosting.pick(r)
	} else {
		i = r.IntN(len(w.users))
	}
	u := &w.users[i]
	if !r.chance(0.05) { // otherwise: re-scraped, nothing changed
		adds := 1
		if r.chance(0.3) {
			adds += r.IntN(3)
		}
		for range adds {
			if r.chance(0.85) {
				for tries := 0; tries < 10; tries++ {
					j := w.byFame.pick(r)
					if j != i && !slices.Contains(u.follows, j) {
						u.follows = append(u.follows, j)
						break
					}
				}
			} else {
				u.ext = append(u.ext, w.newExt(nowMs))
			}
		}
		if r.chance(0.35) && len(u.follows)+len(u.ext) > 3 {
			for range 1 + r.IntN(2) {
				if len(u.follows) > 0 && (len(u.ext) == 0 || r.chance(0.7)) {
					k := r.IntN(len(u.follows))
					u.follows = slices.Delete(u.follows, k, k+1)
				} else if len(u.ext) > 0 {
					k := r.IntN(len(u.ext))
					u.ext = slices.Delete(u.ext, k, k+1)
				}
			}
		}
	}
	return g.followingObs(i)
}

// followingObs is the complete following list of user i, newest first.
func (g *generator) followingObs(i int) []byte {
	r := g.r
	u := &g.w.users[i]
	list := make([]protocol.FollowUser, 0, len(u.follows)+len(u.ext))
	for k := len(u.ext) - 1; k >= 0; k-- {
		e := &u.ext[k]
		fu := protocol.FollowUser{ID: e.id, Handle: e.handle}
		if !e.sparse {
			fu.Name, fu.Bio, fu.Followers, fu.Following, fu.Protected = strp(e.name), strp(e.bio), i64p(e.followers), i64p(e.following), boolp(e.protected)
		}
		list = append(list, fu)
	}
	for k := len(u.follows) - 1; k >= 0; k-- {
		f := &g.w.users[u.follows[k]]
		fu := protocol.FollowUser{ID: f.id, Handle: f.handle}
		if !r.chance(0.04) {
			fu.Name, fu.Bio, fu.Followers = strp(f.name), strp(f.bio), i64p(f.followers)
			fu.Following, fu.Protected = i64p(int64(len(f.follows)+len(f.ext))), boolp(f.protected)
		}
		list = append(list, fu)
	}
	return encode(protocol.KindFollowing, &protocol.FollowingObs{Handle: u.handle, Users: list})
}

func (g *generator) genFollowersNew(nowMs int64) []byte {
	r := g.r
	w := g.w
	ti := w.byFame.pick(r)
	k := 1
	if r.chance(0.3) {
		k += r.IntN(5)
	}
	list := make([]protocol.NewFollower, 0, k)
	for range k {
		if r.chance(0.6) {
			j := r.IntN(len(w.users))
			f := &w.users[j]
			if j != ti && !slices.Contains(f.follows, ti) {
				// The follower's own following list now includes the target.
				f.follows = append(f.follows, ti)
				list = append(list, protocol.NewFollower{ID: f.id, Handle: f.handle, Name: strp(f.name)})
				continue
			}
		}
		e := w.newExt(nowMs)
		nf := protocol.NewFollower{ID: e.id, Handle: e.handle}
		if !r.chance(0.1) {
			nf.Name = strp(e.name)
		}
		list = append(list, nf)
	}
	t := &w.users[ti]
	t.followers += int64(len(list))
	return encode(protocol.KindFollowersNew, &protocol.FollowersNewObs{Handle: t.handle, Users: list})
}

// ---- communities ----

func (g *generator) genCommunities() []byte {
	r := g.r
	w := g.w
	if r.chance(1.0 / 150) {
		w.hotComm = r.IntN(len(w.comms))
	}
	i := r.IntN(len(w.users))
	u := &w.users[i]
	x := r.Float64()
	switch {
	case x < 0.45 || len(u.comms) == 0:
		// Joins lean towards one hot community, so that several accounts
		// converge on it (Convergence Tracker).
		c := w.hotComm
		if !r.chance(0.4) {
			c = r.IntN(len(w.comms))
		}
		if !slices.Contains(u.comms, c) {
			u.comms = append(u.comms, c)
			w.comms[c].members++
		}
	case x < 0.62:
		k := r.IntN(len(u.comms))
		w.comms[u.comms[k]].members = max(0, w.comms[u.comms[k]].members-1)
		u.comms = slices.Delete(u.comms, k, k+1)
	case x < 0.74:
		c := &w.comms[pick(r, u.comms)]
		base := c.name
		for _, s := range communityNameSuffix {
			base = strings.TrimSuffix(base, s)
		}
		if base != c.name {
			c.name = base
		} else {
			c.name = base + pick(r, communityNameSuffix)
		}
	case x < 0.86:
		c := &w.comms[pick(r, u.comms)]
		d := pick(r, communityDescs)
		if d == c.desc {
			d += " (updated)"
		}
		c.desc = d
	default:
		for _, k := range u.comms {
			w.comms[k].members = max(0, w.comms[k].members+int64(r.between(-10, 40)))
		}
	}
	return g.communitiesObs(i)
}

func (g *generator) communitiesObs(i int) []byte {
	u := &g.w.users[i]
	list := make([]protocol.Community, 0, len(u.comms))
	for _, k := range u.comms {
		c := &g.w.comms[k]
		creator := c.creatorExt
		if c.creator >= 0 {
			creator = g.w.users[c.creator].handle
		}
		list = append(list, protocol.Community{ID: c.id, Name: c.name, Description: c.desc, MemberCount: c.members, CreatorScreenName: creator})
	}
	return encode(protocol.KindCommunities, &protocol.CommunitiesObs{Handle: u.handle, Communities: list})
}

// ---- engagement and trending ----

func (g *generator) genEngagement(nowMs int64) (int, []byte) {
	r := g.r
	p := g.pickRecent()
	if p == nil {
		return kPost, g.genPost(nowMs)
	}
	if !r.chance(0.1) { // otherwise: polled, nothing changed
		scale := min(1+float64(g.w.users[p.author].followers)/3000, 300)
		dl := int64(r.IntN(int(3*scale) + 2))
		p.likes += dl
		p.rts += int64(r.IntN(int(dl/4) + 1))
		p.replies += int64(r.IntN(int(dl/6) + 1))
		if r.chance(0.2) {
			p.quotes += int64(r.IntN(3))
		}
		p.bookmarks += int64(r.IntN(int(dl/5) + 1))
		p.views += dl*int64(r.between(20, 60)) + int64(r.IntN(100))
	}
	return kEngagement, encode(protocol.KindEngagement, &protocol.EngagementObs{
		TweetID: p.id, FavoriteCount: p.likes, RetweetCount: p.rts, ReplyCount: p.replies,
		QuoteCount: p.quotes, BookmarkCount: p.bookmarks,
	})
}

var worldTrendCats = []string{"crypto", "memes", "ai", "defi", "nft", "finance", "technology", "business", "news"}

func (g *generator) genTrending(nowMs int64) []byte {
	r := g.r
	w := g.w
	// An earlier trending post climbs again.
	if len(g.trends) > 0 && r.chance(0.2) {
		tr := &g.trends[r.IntN(len(g.trends))]
		f := r.uniform(1.05, 1.6)
		t := &tr.tweet
		t.RetweetCount = int64(float64(t.RetweetCount) * f)
		t.LikeCount = int64(float64(t.LikeCount) * f)
		t.ReplyCount = int64(float64(t.ReplyCount) * f)
		t.QuoteCount = int64(float64(t.QuoteCount) * f)
		t.ViewCount = int64(float64(t.ViewCount) * f)
		return encode(protocol.KindTrending, &protocol.TrendingObs{Category: tr.cat, Tweet: *t})
	}
	var cat string
	var tt protocol.TrendingTweet
	likes := int64(r.pareto(800, 1.1))
	if p := g.pickRecent(); p != nil && r.chance(0.5) {
		cat = pick(r, worldTrendCats)
		u := &w.users[p.author]
		tt = protocol.TrendingTweet{
			TweetID: p.id, AuthorScreenName: u.handle, AuthorDisplayName: u.name, FullText: p.tb.text(),
			CreatedAt: time.UnixMilli(p.created).UTC().Format(time.RFC3339), MediaCount: int64(len(p.media)),
		}
	} else {
		cat = pick(r, TrendingCategories)
		created := nowMs - int64(r.between(5*60, 6*3600))*1000
		id := strconv.FormatInt(snowflakeAt(r, created), 10)
		handle, name := "", ""
		if r.chance(0.5) {
			u := &w.users[w.byFame.pick(r)]
			handle, name = u.handle, u.name
		} else {
			b := pick(r, brandWords)
			handle, name = strings.ToLower(b)+cat[:min(len(cat), 6)], b+" "+titleWords(cat)
		}
		text := pick(r, headlines)
		if r.chance(0.4) {
			text = pick(r, chatter)
		}
		tt = protocol.TrendingTweet{
			TweetID: id, AuthorScreenName: handle, AuthorDisplayName: name, FullText: text,
			CreatedAt: time.UnixMilli(created).UTC().Format(time.RFC3339), MediaCount: int64(r.IntN(3)),
		}
	}
	tt.LikeCount = likes
	tt.RetweetCount = likes / int64(r.between(3, 8))
	tt.ReplyCount = likes / int64(r.between(8, 30))
	tt.QuoteCount = likes / int64(r.between(20, 80))
	tt.ViewCount = likes * int64(r.between(60, 250))
	tt.TweetURL = "https://x.com/" + tt.AuthorScreenName + "/status/" + tt.TweetID
	if len(g.trends) >= 64 {
		g.trends = slices.Delete(g.trends, 0, 1)
	}
	g.trends = append(g.trends, trendRec{cat: cat, tweet: tt})
	return encode(protocol.KindTrending, &protocol.TrendingObs{Category: cat, Tweet: tt})
}
