package sim

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/alertd/alertd/protocol"
)

// snowflakeEpoch is the platform's id epoch (ms).
const snowflakeEpoch = 1288834974657

// user is one account of the synthetic world.
type user struct {
	id          string
	handle      string
	name        string
	bio         string
	avatar      string
	banner      *string
	location    *string
	website     *string
	followers   int64
	verified    bool
	vtype       *string
	pinned      []string
	cats        []string // as sent upstream (some in display spelling)
	primary     string   // first category slug, "" if none
	brand       bool
	suspended   bool
	protected   bool
	affiliation json.RawMessage
	activity    float64 // relative posting rate

	follows []int     // world accounts followed, in follow order
	ext     []extUser // followed accounts outside the world
	comms   []int     // community memberships, in join order
	recent  []string  // own recent post ids, newest last
}

// extUser is an account outside the world (in following lists, new followers).
type extUser struct {
	id, handle, name, bio string
	followers, following  int64
	protected             bool
	sparse                bool // the scraper only saw id and handle
}

type community struct {
	id, name, desc string
	members        int64
	creator        int    // world user index, or -1
	creatorExt     string // creator handle when creator is -1
}

type token struct {
	mint, name, sym, wallet, curve, uri string
	mcap                                float64 // in SOL, as launchpads report
	live, graduated                     bool
}

type wallet struct {
	addr   string
	weight float64
}

type caller struct{ wallet, username string }

// callTrack is the market-cap path of a called mint.
type callTrack struct {
	mint    string
	base    float64 // market cap at the first callout
	cur     float64
	peak    float64 // multiple of base the path will reach
	rising  bool
	steps   int
	creator string
	name    string
	sym     string
}

// rng wraps math/rand/v2 with the helpers of the generator.
type rng struct{ *rand.Rand }

func newRNG(seed int64) rng {
	return rng{rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))}
}

func (r rng) chance(p float64) bool { return r.Float64() < p }

func (r rng) between(lo, hi int) int { return lo + r.IntN(hi-lo+1) }

func (r rng) uniform(lo, hi float64) float64 { return lo + r.Float64()*(hi-lo) }

func (r rng) logUniform(lo, hi float64) float64 {
	return math.Exp(r.uniform(math.Log(lo), math.Log(hi)))
}

// pareto draws a heavy-tailed value with scale xm and shape alpha.
func (r rng) pareto(xm, alpha float64) float64 {
	return xm / math.Pow(1-r.Float64(), 1/alpha)
}

func pick[T any](r rng, s []T) T { return s[r.IntN(len(s))] }

func (r rng) bytes(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// solAddr is a Solana address: base58 of 32 random bytes.
func (r rng) solAddr() string { return EncodeBase58(r.bytes(32)) }

// solSig is a transaction signature: base58 of 64 random bytes.
func (r rng) solSig() string { return EncodeBase58(r.bytes(64)) }

// evmAddr is 0x and 40 lowercase hex digits.
func (r rng) evmAddr() string { return "0x" + hex.EncodeToString(r.bytes(20)) }

// ipfsCID is a CIDv0 ("Qm..."): base58 of a sha2-256 multihash.
func (r rng) ipfsCID() string { return EncodeBase58(append([]byte{0x12, 0x20}, r.bytes(32)...)) }

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func (r rng) alnum(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b)
}

func snowflakeAt(r rng, ms int64) int64 {
	if ms < snowflakeEpoch {
		ms = snowflakeEpoch
	}
	return (ms-snowflakeEpoch)<<22 | int64(r.IntN(1024))<<12 | int64(r.IntN(4096))
}

// weights is a prefix-sum table for weighted picks.
type weights []float64

func newWeights(w []float64) weights {
	p := make(weights, len(w))
	sum := 0.0
	for i, v := range w {
		sum += v
		p[i] = sum
	}
	return p
}

func (w weights) pick(r rng) int {
	x := r.Float64() * w[len(w)-1]
	i, _ := slices.BinarySearch(w, x)
	if i >= len(w) {
		i = len(w) - 1
	}
	return i
}

// world is the state the generator keeps between observations.
type world struct {
	r         rng
	users     []user
	handles   map[string]bool
	ids       map[string]bool
	byPosting weights // activity
	byFame    weights // followers^0.6: who gets followed
	comms     []community
	hotComm   int
	wallets   []wallet
	byWallet  weights
	callers   []caller
	tokens    []*token // recent launches, oldest first
	extSeq    int64
	calls     []*callTrack
}

func newWorld(r rng, n int, nowMs int64) *world {
	w := &world{r: r, handles: map[string]bool{}, ids: map[string]bool{}}
	w.users = make([]user, n)
	for i := range w.users {
		w.users[i] = w.newUser(nowMs)
	}
	// Affiliations point at brand accounts of the world.
	var brands []int
	for i := range w.users {
		if w.users[i].brand {
			brands = append(brands, i)
		}
	}
	if len(brands) > 0 {
		for i := range w.users {
			u := &w.users[i]
			if u.brand || !slices.Contains([]string{"founders", "devs", "researchers", "vc", "ai"}, u.primary) || !r.chance(0.3) {
				continue
			}
			b := &w.users[pick(r, brands)]
			u.affiliation = json.RawMessage(`{"description":` + strconv.Quote(b.name) +
				`,"url":"https://x.com/` + b.handle + `","badge_url":"https://pbs.example.com/profile_images/` + b.id + `/badge_normal.jpg"}`)
		}
	}
	act := make([]float64, n)
	fame := make([]float64, n)
	for i := range w.users {
		act[i] = w.users[i].activity
		fame[i] = math.Pow(float64(w.users[i].followers)+10, 0.6)
	}
	w.byPosting = newWeights(act)
	w.byFame = newWeights(fame)

	w.comms = make([]community, len(communityNames))
	for i, c := range communityNames {
		cm := community{
			id:      strconv.FormatInt(snowflakeAt(r, nowMs-int64(r.between(30, 900))*86400000), 10),
			name:    c.name,
			desc:    c.desc,
			members: int64(min(r.pareto(40, 0.8), 400000)),
			creator: -1,
		}
		if r.chance(0.7) {
			cm.creator = r.IntN(n)
		} else {
			cm.creatorExt = pick(r, handleWords) + pick(r, handleTails)
		}
		w.comms[i] = cm
	}
	cw := make([]float64, len(w.comms))
	for i := range cw {
		cw[i] = math.Sqrt(float64(w.comms[i].members) + 1)
	}
	cwt := newWeights(cw)
	for i := range w.users {
		u := &w.users[i]
		// Following lists: a heavy-tailed size, skewed to famous accounts.
		k := min(int(r.pareto(4, 1.1)), 120, n-1)
		for tries := 0; len(u.follows) < k && tries < 4*k+20; tries++ {
			j := w.byFame.pick(r)
			if j != i && !slices.Contains(u.follows, j) {
				u.follows = append(u.follows, j)
			}
		}
		for range r.IntN(5) {
			u.ext = append(u.ext, w.newExt(nowMs))
		}
		if !r.chance(0.3) {
			m := 1 + r.IntN(4)
			for tries := 0; len(u.comms) < m && tries < 20; tries++ {
				c := cwt.pick(r)
				if !slices.Contains(u.comms, c) {
					u.comms = append(u.comms, c)
				}
			}
		}
	}
	w.hotComm = r.IntN(len(w.comms))

	w.wallets = make([]wallet, 30)
	ww := make([]float64, len(w.wallets))
	for i := range w.wallets {
		w.wallets[i] = wallet{addr: r.solAddr(), weight: min(r.pareto(1, 1.2), 20)}
		ww[i] = w.wallets[i].weight
	}
	w.byWallet = newWeights(ww)
	for _, name := range callerNames {
		w.callers = append(w.callers, caller{wallet: r.solAddr(), username: name})
	}
	return w
}

func (w *world) uniqueID(s string) bool {
	if w.ids[s] {
		return false
	}
	w.ids[s] = true
	return true
}

// newUserID is a legacy numeric id or a snowflake of the signup time.
func (w *world) newUserID(nowMs int64) string {
	for {
		var id string
		if w.r.chance(0.3) {
			id = strconv.FormatInt(int64(w.r.between(100000, 1999999999)), 10)
		} else {
			signup := nowMs - int64(w.r.between(20, 4000))*86400000
			id = strconv.FormatInt(snowflakeAt(w.r, signup), 10)
		}
		if w.uniqueID(id) {
			return id
		}
	}
}

// newHandle returns an unused handle of at most 15 characters.
func (w *world) newHandle() string {
	r := w.r
	for tries := 0; ; tries++ {
		var h string
		switch r.IntN(7) {
		case 0, 1, 2:
			h = pick(r, handleWords) + pick(r, handleTails)
		case 3:
			h = pick(r, handleWords) + "_" + pick(r, handleTails)
		case 4:
			h = pick(r, handleWords) + pick(r, handleTails) + strconv.Itoa(r.IntN(100))
		case 5:
			h = strings.ToLower(pick(r, firstNames)) + pick(r, handleWords)
		default:
			h = strings.ToLower(pick(r, firstNames)) + "_" + pick(r, handleWords) + strconv.Itoa(r.IntN(1000))
		}
		if tries >= 40 {
			h = h[:min(len(h), 9)] + strconv.Itoa(100000+r.IntN(900000))
		}
		if w.claimHandle(h) {
			return h
		}
	}
}

func (w *world) claimHandle(h string) bool {
	if len(h) > 15 || !protocol.ValidHandle(h) || w.handles[h] || isExtShaped(h) {
		return false
	}
	w.handles[h] = true
	return true
}

func (w *world) avatarURL(id string) string {
	return "https://pbs.example.com/profile_images/" + id + "/" + w.r.alnum(10) + "_normal.jpg"
}

func (w *world) bannerURL(id string, nowMs int64) *string {
	s := "https://pbs.example.com/profile_banners/" + id + "/" + strconv.FormatInt(nowMs/1000-int64(w.r.IntN(5e7)), 10) + "/1500x500"
	return &s
}

func (w *world) newUser(nowMs int64) user {
	r := w.r
	u := user{id: w.newUserID(nowMs)}
	if !r.chance(0.18) {
		nc := 1 + r.IntN(3)
		perm := r.Perm(len(Categories))
		for _, p := range perm[:nc] {
			u.cats = append(u.cats, Categories[p])
		}
		u.primary = u.cats[0]
	}
	if kinds, ok := brandKinds[u.primary]; ok && r.chance(0.4) {
		name := pick(r, brandWords) + " " + pick(r, kinds)
		h := strings.ToLower(strings.ReplaceAll(name, " ", ""))
		if w.claimHandle(h) {
			u.brand = true
			u.name = name
			u.handle = h
		}
	}
	if u.handle == "" {
		u.handle = w.newHandle()
		switch r.IntN(3) {
		case 0:
			u.name = pick(r, firstNames) + " " + pick(r, lastNames)
		case 1:
			u.name = pick(r, firstNames) + pick(r, nameDecor)
		default:
			u.name = titleWords(u.handle) + pick(r, nameDecor)
		}
	}
	u.bio = w.newBio(&u)
	u.avatar = w.avatarURL(u.id)
	if r.chance(0.6) {
		u.banner = w.bannerURL(u.id, nowMs)
	}
	if r.chance(0.55) {
		l := pick(r, locations)
		u.location = &l
	}
	if r.chance(0.4) || u.brand {
		s := "https://" + u.handle + pick(r, websiteHosts)
		u.website = &s
	}
	f := r.pareto(200, 0.9)
	if u.brand || u.primary == "kols" || u.primary == "exchanges" {
		f *= 5
	}
	u.followers = int64(min(f, 9e7))
	switch {
	case r.chance(0.005):
		u.vtype = strp("government")
	case u.brand && r.chance(0.7):
		u.vtype = strp("business")
	case r.chance(min(max(0.15+0.15*math.Log10(float64(u.followers)/1000), 0.1), 0.8)):
		u.vtype = strp("blue")
	}
	u.verified = u.vtype != nil
	u.pinned = []string{}
	if r.chance(0.3) {
		u.pinned = append(u.pinned, strconv.FormatInt(snowflakeAt(r, nowMs-int64(r.between(1, 300))*86400000), 10))
	}
	u.protected = r.chance(0.02)
	u.activity = min(r.pareto(1, 1.3), 40)
	// Some upstreams send category labels rather than slugs.
	if r.chance(0.1) {
		for i, c := range u.cats {
			if d, ok := categoryDisplay[c]; ok {
				u.cats[i] = d
			}
		}
	}
	if u.cats == nil {
		u.cats = []string{}
	}
	return u
}

func (w *world) newBio(u *user) string {
	r := w.r
	if tpl, ok := bioByCategory[u.primary]; ok && r.chance(0.8) {
		b := pick(r, tpl)
		if strings.Contains(b, "%s") {
			b = strings.Replace(b, "%s", pick(r, brandWords), 1)
		}
		return b
	}
	return pick(r, genericBios)
}

// newExt is an account outside the world. Its handle is a name or word and a
// number that only grows, so it never repeats and never equals a world handle
// (see isExtShaped); its id is a snowflake of a recent signup.
func (w *world) newExt(nowMs int64) extUser {
	r := w.r
	if w.extSeq == 0 {
		w.extSeq = int64(r.between(1000, 9000))
	}
	w.extSeq += int64(r.between(1, 97))
	prefix := pick(r, handleWords)
	if r.chance(0.5) {
		prefix = strings.ToLower(pick(r, firstNames))
	}
	signup := nowMs - int64(r.between(1, 1500))*86400000
	return extUser{
		id:        strconv.FormatInt(snowflakeAt(r, signup), 10),
		handle:    prefix + strconv.FormatInt(w.extSeq, 10),
		name:      pick(r, firstNames),
		bio:       pick(r, genericBios),
		followers: int64(r.pareto(20, 1.1)),
		following: int64(r.between(5, 3000)),
		protected: r.chance(0.05),
		sparse:    r.chance(0.08),
	}
}

// extPrefixes are the letter parts of external handles.
var extPrefixes = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range handleWords {
		m[w] = true
	}
	for _, n := range firstNames {
		m[strings.ToLower(n)] = true
	}
	return m
}()

// isExtShaped reports whether h has the shape of an external handle.
func isExtShaped(h string) bool {
	i := strings.IndexAny(h, "0123456789")
	if i <= 0 || !extPrefixes[h[:i]] {
		return false
	}
	for _, c := range h[i:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func titleWords(h string) string {
	parts := strings.FieldsFunc(h, func(c rune) bool { return c == '_' || c >= '0' && c <= '9' })
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	if len(parts) == 0 {
		return h
	}
	return strings.Join(parts, " ")
}

func strp(s string) *string { return &s }

func i64p(v int64) *int64 { return &v }

func boolp(v bool) *bool { return &v }

// userObs is the snapshot of u as a user observation.
func (u *user) obs() *protocol.UserObs {
	return &protocol.UserObs{
		ID: u.id, Handle: u.handle, Name: u.name, Bio: u.bio, Avatar: u.avatar,
		BannerURL: u.banner, Location: u.location, Website: u.website,
		Followers: u.followers, Following: int64(len(u.follows) + len(u.ext)),
		Verified: u.verified, VerificationType: u.vtype,
		PinnedPost: slices.Clone(u.pinned), Categories: slices.Clone(u.cats),
		Suspended: u.suspended,
	}
}
