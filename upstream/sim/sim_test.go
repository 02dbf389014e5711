package sim

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
)

var fixedNow = func() time.Time { return time.UnixMilli(1763712000000) }

// decodeAll generates n lines and decodes each, failing on any error.
func decodeAll(t *testing.T, cfg Config, n int) []*protocol.Observation {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = fixedNow
	}
	s := New(cfg)
	lines := s.Generate(n)
	out := make([]*protocol.Observation, len(lines))
	for i, l := range lines {
		if bytes.ContainsRune(l, '\n') {
			t.Fatalf("line %d contains a newline: %s", i, l)
		}
		o, err := protocol.DecodeObservation(l, 1)
		if err != nil {
			t.Fatalf("line %d does not decode: %v\n%s", i, err, l)
		}
		out[i] = o
	}
	return out
}

func TestEveryLineDecodesAndEveryKindAppears(t *testing.T) {
	obs := decodeAll(t, Config{Seed: 7, Users: 60}, 6000)
	kinds := map[string]int{}
	types := map[string]int{}
	for _, o := range obs {
		kinds[o.Kind]++
		if o.Post != nil {
			types[o.Post.Type]++
		}
		if o.Key == "" {
			t.Errorf("%s observation without routing key", o.Kind)
		}
	}
	for _, k := range protocol.Kinds {
		if kinds[k] == 0 {
			t.Errorf("kind %s never generated (%v)", k, kinds)
		}
	}
	for _, ty := range []string{"post", "reply", "quote", "repost"} {
		if types[ty] == 0 {
			t.Errorf("post type %s never generated (%v)", ty, types)
		}
	}
	steady := len(obs) - 3*60
	if kinds["post"] < steady/2 {
		t.Errorf("posts are not the majority: %v", kinds)
	}
}

func TestStartupSnapshots(t *testing.T) {
	const n = 40
	obs := decodeAll(t, Config{Seed: 3, Users: n}, 3*n)
	handles := map[string]bool{}
	ids := map[string]bool{}
	withCats, withoutCats := 0, 0
	verif := map[string]int{}
	for i, o := range obs {
		want := []string{"user", "following", "communities"}[i/n]
		if o.Kind != want {
			t.Fatalf("line %d is %s, want %s", i, o.Kind, want)
		}
		if o.User == nil {
			continue
		}
		u := o.User
		if handles[u.Handle] || ids[u.ID] {
			t.Errorf("duplicate user %s/%s", u.ID, u.Handle)
		}
		handles[u.Handle], ids[u.ID] = true, true
		if len(u.Handle) > 15 {
			t.Errorf("handle %q longer than 15", u.Handle)
		}
		if !strings.HasPrefix(u.Avatar, "https://pbs.example.com/") {
			t.Errorf("avatar %q", u.Avatar)
		}
		if u.Name == "" {
			t.Errorf("user %s without name", u.Handle)
		}
		if len(u.Categories) > 0 {
			withCats++
			for _, c := range u.Categories {
				if !slices.Contains(Categories, c) {
					t.Errorf("category %q is not a known slug", c)
				}
			}
		} else {
			withoutCats++
		}
		vt := "none"
		if u.VerificationType != nil {
			vt = *u.VerificationType
		}
		if u.Verified != (u.VerificationType != nil) {
			t.Errorf("verified %v with type %s", u.Verified, vt)
		}
		verif[vt]++
	}
	if len(handles) != n {
		t.Errorf("%d users, want %d", len(handles), n)
	}
	if withCats == 0 || withoutCats == 0 {
		t.Errorf("categories: %d with, %d without", withCats, withoutCats)
	}
	if verif["blue"] == 0 || verif["none"] == 0 {
		t.Errorf("verification mix %v", verif)
	}
	// Following and communities snapshots name world users.
	for _, o := range obs[n : 2*n] {
		if !handles[o.Key] {
			t.Errorf("following snapshot of unknown handle %s", o.Key)
		}
	}
}

var (
	evmRe     = regexp.MustCompile(`^0x[0-9a-f]{40}$`)
	base58Run = regexp.MustCompile(`[1-9A-HJ-NP-Za-km-z]{32,44}`)
)

func decodes32(t *testing.T, what, s string) {
	t.Helper()
	b, err := DecodeBase58(s)
	if err != nil || len(b) != 32 {
		t.Errorf("%s %q decodes to %d bytes (%v), want 32", what, s, len(b), err)
	}
}

func TestAddresses(t *testing.T) {
	obs := decodeAll(t, Config{Seed: 11, Users: 50}, 6000)
	var sol, evm, launch int
	for _, o := range obs {
		switch {
		case o.Post != nil:
			for _, w := range strings.Fields(o.Post.Text) {
				w = strings.TrimRight(w, ".,")
				if strings.HasPrefix(w, "0x") {
					evm++
					if !evmRe.MatchString(w) {
						t.Errorf("malformed EVM address %q", w)
					}
					continue
				}
				if len(w) >= 32 && base58Run.FindString(w) == w {
					sol++
					decodes32(t, "post CA", w)
				}
			}
		case o.Launchpad != nil:
			launch++
			l := o.Launchpad
			decodes32(t, "mint", l.Mint)
			decodes32(t, "wallet", l.WalletAddress)
			decodes32(t, "creator", l.Creator)
			decodes32(t, "bonding curve", l.BondingCurve)
			if sig, err := DecodeBase58(l.Signature); err != nil || len(sig) != 64 {
				t.Errorf("signature %q: %d bytes", l.Signature, len(sig))
			}
			if !strings.HasPrefix(l.URI, "https://ipfs.example.com/ipfs/Qm") {
				t.Errorf("uri %q", l.URI)
			}
		case o.Callout != nil:
			decodes32(t, "callout mint", o.Callout.Mint)
			decodes32(t, "caller wallet", o.Callout.CallerWallet)
			decodes32(t, "callout creator", o.Callout.Creator)
		case o.MarketCap != nil:
			decodes32(t, "market cap mint", o.MarketCap.Mint)
		}
	}
	if sol < 50 || evm < 5 || launch < 50 {
		t.Errorf("too few addresses: %d Solana, %d EVM in posts, %d launchpad events", sol, evm, launch)
	}
}

func TestEntityIndices(t *testing.T) {
	obs := decodeAll(t, Config{Seed: 5, Users: 50}, 5000)
	var syms, tags, urls int
	for _, o := range obs {
		p := o.Post
		if p == nil {
			continue
		}
		text := p.Text
		var want []string
		for _, s := range p.Entities.Symbols {
			syms++
			i, j := s.Indices[0], s.Indices[1]
			if i < 0 || j > len(text) || i >= j || text[i:j] != "$"+s.Text {
				t.Fatalf("post %s: symbol %q at %v does not match text %q", p.ID, s.Text, s.Indices, text)
			}
			if !slices.Contains(want, s.Text) {
				want = append(want, s.Text)
			}
		}
		if !slices.Equal(p.Cashtags, want) {
			t.Errorf("post %s: cashtags %v, symbols %v", p.ID, p.Cashtags, want)
		}
		var hs []hashEnt
		if err := jsonUnmarshal(p.Entities.Hashtags, &hs); err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			tags++
			if text[h.Indices[0]:h.Indices[1]] != "#"+h.Text {
				t.Errorf("post %s: hashtag %q at %v in %q", p.ID, h.Text, h.Indices, text)
			}
		}
		var us []urlEnt
		if err := jsonUnmarshal(p.Entities.URLs, &us); err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			urls++
			if text[u.Indices[0]:u.Indices[1]] != u.URL || !strings.HasPrefix(u.ExpandedURL, "https://") {
				t.Errorf("post %s: url %+v in %q", p.ID, u, text)
			}
		}
		for _, m := range p.Mentions {
			if !strings.Contains(text, "@"+m) {
				t.Errorf("post %s: mention %s not in %q", p.ID, m, text)
			}
		}
		switch p.Type {
		case "reply":
			if p.InReplyTo == nil || !strings.HasPrefix(text, "@"+p.InReplyTo.User+" ") {
				t.Errorf("reply %s: in_reply_to %+v, text %q", p.ID, p.InReplyTo, text)
			}
			if p.QuotedTweet != nil && p.QuotedTweet.ID != p.InReplyTo.TweetID {
				t.Errorf("reply %s carries parent %s, replies to %s", p.ID, p.QuotedTweet.ID, p.InReplyTo.TweetID)
			}
		case "quote":
			if p.QuotedTweet == nil || p.InReplyTo != nil {
				t.Errorf("quote %s without quoted_tweet", p.ID)
			}
		case "repost":
			if !strings.HasPrefix(text, "RT @") || p.QuotedTweet == nil {
				t.Errorf("repost %s: %q", p.ID, text)
			}
		}
		for _, m := range p.Media {
			if m.Type != "photo" || !strings.HasPrefix(m.URL, "https://pbs.example.com/") {
				t.Errorf("media %+v", m)
			}
		}
	}
	if syms < 100 || tags < 20 || urls < 20 {
		t.Errorf("few entities: %d symbols, %d hashtags, %d urls", syms, tags, urls)
	}
}

func TestPostsIDsTimesAndUpdates(t *testing.T) {
	obs := decodeAll(t, Config{Seed: 9, Users: 50}, 8000)
	now := fixedNow().UnixMilli()
	first := map[string]*protocol.Tweet{}
	var last string
	updates, fuller := 0, 0
	for _, o := range obs {
		p := o.Post
		if p == nil {
			continue
		}
		if age := now - p.CreatedAt; age < 100 || age > 10*60*1000 {
			t.Errorf("post %s created %d ms before now", p.ID, age)
		}
		if prev, ok := first[p.ID]; ok {
			updates++
			if prev.QuotedTweet == nil && p.QuotedTweet != nil ||
				prev.QuotedTweet != nil && p.QuotedTweet != nil && prev.QuotedTweet.Text == "" && p.QuotedTweet.Text != "" ||
				len(p.Text) > len(prev.Text) {
				fuller++
			}
			if prev.CreatedAt != p.CreatedAt || prev.Type != p.Type {
				t.Errorf("re-observation of %s changed created_at or type", p.ID)
			}
			continue
		}
		first[p.ID] = p
		if last != "" && (len(p.ID) < len(last) || len(p.ID) == len(last) && p.ID <= last) {
			t.Errorf("post id %s does not increase after %s", p.ID, last)
		}
		last = p.ID
	}
	if updates == 0 || fuller != updates {
		t.Errorf("%d re-observations, %d of them with fuller context", updates, fuller)
	}
}

func TestSnapshotsChangeRealistically(t *testing.T) {
	obs := decodeAll(t, Config{Seed: 21, Users: 40}, 20000)
	lastFollow := map[string][]string{}
	userByID := map[string]*protocol.UserObs{}
	changed, renamed, small := 0, 0, 0
	var joins, milestones2, milestones5 int
	firstCall := map[string]float64{}
	maxMult := map[string]float64{}
	commNames := map[string]string{}
	renames := 0
	for i, o := range obs {
		switch {
		case o.Following != nil:
			var ids []string
			for _, u := range o.Following.Users {
				ids = append(ids, u.ID)
			}
			if prev, ok := lastFollow[o.Key]; ok && i >= 120 {
				added, removed := 0, 0
				for _, id := range ids {
					if !slices.Contains(prev, id) {
						added++
					}
				}
				for _, id := range prev {
					if !slices.Contains(ids, id) {
						removed++
					}
				}
				if added+removed > 0 {
					changed++
				}
				if added+removed <= 6 {
					small++
				}
			}
			lastFollow[o.Key] = ids
		case o.User != nil:
			if prev, ok := userByID[o.User.ID]; ok && prev.Handle != o.User.Handle {
				renamed++
				delete(lastFollow, prev.Handle)
			}
			userByID[o.User.ID] = o.User
		case o.Communities != nil:
			for _, c := range o.Communities.Communities {
				if n, ok := commNames[c.ID]; ok && n != c.Name {
					renames++
				}
				commNames[c.ID] = c.Name
			}
			joins += len(o.Communities.Communities)
		case o.Callout != nil:
			if _, ok := firstCall[o.Callout.Mint]; !ok {
				firstCall[o.Callout.Mint] = o.Callout.CalloutMcap
			}
		case o.MarketCap != nil:
			if base, ok := firstCall[o.MarketCap.Mint]; ok && base > 0 {
				maxMult[o.MarketCap.Mint] = max(maxMult[o.MarketCap.Mint], o.MarketCap.MarketCap/base)
			}
		}
	}
	for _, m := range maxMult {
		if m >= 2 {
			milestones2++
		}
		if m >= 5 {
			milestones5++
		}
	}
	if changed == 0 || small < changed*9/10 {
		t.Errorf("following diffs: %d changed, %d small", changed, small)
	}
	if renamed == 0 {
		t.Error("no handle rename")
	}
	if renames == 0 || joins == 0 {
		t.Errorf("communities: %d renames, %d memberships", renames, joins)
	}
	if milestones2 == 0 || milestones5 == 0 {
		t.Errorf("callouts crossing 2x: %d, 5x: %d (of %d)", milestones2, milestones5, len(maxMult))
	}
}

func TestDeterministic(t *testing.T) {
	a := New(Config{Seed: 42, Users: 30, Now: fixedNow}).Generate(3000)
	b := New(Config{Seed: 42, Users: 30, Now: fixedNow}).Generate(3000)
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("line %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
	s := New(Config{Seed: 42, Users: 30, Now: fixedNow})
	if h := s.ActiveHandles(5); len(h) != 5 || !slices.Contains(s.Handles(), h[0]) {
		t.Errorf("active handles %v", h)
	}
	if len(s.CreatorWallets()) == 0 || len(s.Callers()) == 0 || len(s.Tickers()) == 0 {
		t.Error("no demo targets")
	}
	c := New(Config{Seed: 43, Users: 30, Now: fixedNow}).Generate(10)
	if bytes.Equal(a[0], c[0]) {
		t.Error("different seeds give the same first line")
	}
}

func TestBase58(t *testing.T) {
	vectors := []struct{ hex, b58 string }{
		{"", ""},
		{"61", "2g"},
		{"626262", "a3gV"},
		{"00000000000000000000", "1111111111"},
		{"0000287fb4cd", "11233QC4"},
		{"48656c6c6f20576f726c6421", "2NEpo7TZRRrLZSi2U"},
	}
	for _, v := range vectors {
		raw, _ := hex.DecodeString(v.hex)
		if got := EncodeBase58(raw); got != v.b58 {
			t.Errorf("encode %s = %q, want %q", v.hex, got, v.b58)
		}
		back, err := DecodeBase58(v.b58)
		if err != nil || !bytes.Equal(back, raw) {
			t.Errorf("decode %q = %x, %v", v.b58, back, err)
		}
	}
	if _, err := DecodeBase58("0OIl"); err == nil {
		t.Error("decoded characters outside the alphabet")
	}
	r := newRNG(1)
	for range 2000 {
		a := r.solAddr()
		if len(a) < 32 || len(a) > 44 {
			t.Fatalf("address %q has length %d", a, len(a))
		}
		decodes32(t, "address", a)
	}
	// Leading zero bytes survive.
	z := append(make([]byte, 3), r.bytes(29)...)
	if back, _ := DecodeBase58(EncodeBase58(z)); !bytes.Equal(back, z) {
		t.Errorf("leading zeros lost: %x", back)
	}
}

// collector is a sink that keeps what it gets.
type collector struct {
	mu    sync.Mutex
	lines [][]byte
	calls int
}

func (c *collector) Send(ctx context.Context, lines [][]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.lines = append(c.lines, lines...)
	return nil
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

func TestRunTotal(t *testing.T) {
	s := New(Config{Seed: 1, Users: 10, Rate: 50000, Total: 600, Batch: 50})
	var c collector
	if err := s.Run(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Total != 600 || st.Sent+st.Dropped+st.Failed != 600 || int64(c.count()) != st.Sent {
		t.Fatalf("stats %+v, collected %d", st, c.count())
	}
	if st.Dropped != 0 {
		t.Errorf("a fast sink saw drops: %+v", st)
	}
	for i, l := range c.lines[:30] {
		o, err := protocol.DecodeObservation(l, 1)
		if err != nil || o.Kind != []string{"user", "following", "communities"}[i/10] {
			t.Fatalf("line %d: %v %s", i, err, l)
		}
	}
	for _, l := range c.lines {
		if len(l) == 0 || bytes.HasSuffix(l, []byte("\n")) {
			t.Fatalf("bad line %q", l)
		}
	}
	if !strings.Contains(st.String(), "600 sent") {
		t.Errorf("progress line %q", st.String())
	}
}

func TestRunClosedLoop(t *testing.T) {
	s := New(Config{Seed: 1, Users: 5, Rate: -1, Total: 500, Batch: 64})
	var c collector
	if err := s.Run(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Sent != 500 || c.count() != 500 {
		t.Fatalf("stats %+v", st)
	}
}

// blockingSink takes the start-up snapshots, then blocks until ctx ends.
type blockingSink struct {
	collector
	after int
}

func (b *blockingSink) Send(ctx context.Context, lines [][]byte) error {
	if b.count() >= b.after {
		<-ctx.Done()
		return ctx.Err()
	}
	return b.collector.Send(ctx, lines)
}

func TestRunDropsWhenSinkIsSlow(t *testing.T) {
	const total = 15 + 5000
	s := New(Config{Seed: 2, Users: 5, Rate: 1e6, Total: total, Batch: 50, Queue: 4})
	sink := &blockingSink{after: 15}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, sink) }()
	// The schedule does not wait for the sink: everything gets generated.
	for s.Stats().Total < total {
		select {
		case err := <-done:
			t.Fatalf("Run returned early: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Dropped == 0 || st.Sent != 15 || st.Sent+st.Dropped+st.Failed != total {
		t.Fatalf("stats %+v", st)
	}
	if !strings.Contains(st.String(), "dropped") {
		t.Errorf("progress line %q", st.String())
	}
}

func TestRunStopsOnPermanentError(t *testing.T) {
	s := New(Config{Seed: 1, Users: 5})
	calls := 0
	sink := upstream.SinkFunc(func(ctx context.Context, lines [][]byte) error {
		calls++
		return &upstream.StatusError{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized"}
	})
	err := s.Run(context.Background(), sink)
	var se *upstream.StatusError
	if !errors.As(err, &se) || calls != 1 {
		t.Fatalf("Run = %v after %d calls", err, calls)
	}
}

func TestRunDurationAndProgress(t *testing.T) {
	s := New(Config{Seed: 1, Users: 5, Rate: 2000, Duration: 100 * time.Millisecond, Tick: 5 * time.Millisecond})
	var c collector
	var buf syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	progDone := make(chan struct{})
	go func() { s.Progress(ctx, &buf, time.Millisecond); close(progDone) }()
	if err := s.Run(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-progDone
	st := s.Stats()
	if st.Sent < 15 || st.Sent != int64(c.count()) {
		t.Fatalf("stats %+v, collected %d", st, c.count())
	}
	out := buf.String()
	if !strings.HasPrefix(out, "simulate: ") || !strings.Contains(out, " sent (") || !regexp.MustCompile(`; user \d+ post \d+`).MatchString(out) {
		t.Errorf("progress output %q", out)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestHTTPSinkIntegration(t *testing.T) {
	// The simulator's lines go through HTTPSink to a receiver that decodes
	// them like the engine does.
	var mu sync.Mutex
	accepted := 0
	srv := newIngestServer(t, func(n int) { mu.Lock(); accepted += n; mu.Unlock() })
	defer srv.Close()
	sink := upstream.NewHTTPSink(srv.URL, "tok")
	s := New(Config{Seed: 4, Users: 8, Rate: 20000, Total: 300, Batch: 40})
	if err := s.Run(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if !st.SinkCounts || st.Accepted != 300 || st.Rejected != 0 || accepted != 300 {
		t.Fatalf("stats %+v, server accepted %d", st, accepted)
	}
	if !strings.Contains(st.String(), "0 rejected") {
		t.Errorf("progress line %q", st.String())
	}
}

func BenchmarkGenerate(b *testing.B) {
	s := New(Config{Seed: 1, Now: fixedNow})
	s.Generate(3 * s.Users())
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += len(s.Generate(1)[0])
	}
	b.SetBytes(int64(n / max(b.N, 1)))
}

func TestStartupSnapshotsAreRetried(t *testing.T) {
	s := New(Config{Seed: 1, Users: 5, Total: 15})
	var c collector
	fails := 2
	sink := upstream.SinkFunc(func(ctx context.Context, lines [][]byte) error {
		if fails > 0 {
			fails--
			return errors.New("connection refused")
		}
		return c.Send(ctx, lines)
	})
	if err := s.Run(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if c.count() != 15 || st.Sent != 15 || st.Failed != 0 || st.SendErrors != 2 {
		t.Fatalf("stats %+v, collected %d", st, c.count())
	}
}

func TestMixOverride(t *testing.T) {
	obs := decodeAll(t, Config{Seed: 1, Users: 5, Mix: map[string]float64{"launchpad": 3, "callout": 1}}, 15+400)
	for _, o := range obs[15:] {
		if o.Kind != "launchpad" && o.Kind != "callout" {
			t.Fatalf("kind %s outside the mix", o.Kind)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("an empty mix did not panic")
		}
	}()
	New(Config{Mix: map[string]float64{"nope": 1}})
}
