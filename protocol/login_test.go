package protocol

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestParseEventType(t *testing.T) {
	cases := []struct {
		in   string
		want EventType
		ok   bool
	}{
		{"tweet", TypeTweet, true},
		{"Retweet", TypeRetweet, true},
		{"QUOTE", TypeQuote, true},
		{" reply ", TypeReply, true},
		{"follow", TypeFollow, true},
		{"Unfollow", TypeUnfollow, true},
		{"follower", TypeFollower, true},
		{"Deleted", TypeDeleted, true},
		{"update_handle", TypeUpdateHandle, true},
		{"Update Bio", TypeUpdateBio, true},
		{"update photo", TypeUpdatePhoto, true},
		{"UPDATE_NAME", TypeUpdateName, true},
		{"Update Banner URL", TypeUpdateBannerURL, true},
		{"update_location", TypeUpdateLocation, true},
		{"update_website", TypeUpdateWebsite, true},
		{"Update Pinned Post", TypeUpdatePinnedPost, true},
		{"update_verified", TypeUpdateVerified, true},
		{"update_banner", TypeNone, false},
		{"post", TypeNone, false},
		{"all", TypeNone, false},
		{"", TypeNone, false},
	}
	for _, c := range cases {
		got, ok := ParseEventType(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseEventType(%q) = %v, %v", c.in, got, ok)
		}
		if ok && got.String() != NormalizeTypeLabel(c.in) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	for ty := TypeNone; ty <= eventTypeCount; ty++ {
		if want := ty >= TypeTweet && ty <= TypeReply; ty.IsPost() != want {
			t.Errorf("%v.IsPost() = %v", ty, ty.IsPost())
		}
	}
	if eventTypeCount.String() != "" {
		t.Error("out-of-range type has a name")
	}
}

func TestKindsForModules(t *testing.T) {
	s := KindsForModules([]string{"realtime", "profile_watch"})
	for k, want := range map[EventKind]bool{
		EventKindPostNew: true, EventKindPostUpdate: true, EventKindTweetDeleted: true, EventKindProfileUpdate: true,
		EventKindFollowingNew: false, EventKindFollowingRemoved: false, EventKindFollowerNew: false, EventKindNone: false,
	} {
		if s.Has(k) != want {
			t.Errorf("Has(%v) = %v", k, s.Has(k))
		}
	}
	all := KindsForModules([]string{"follows", "followers"})
	if !all.Has(EventKindFollowingRemoved) || !all.Has(EventKindFollowerNew) || all.Has(EventKindPostNew) {
		t.Errorf("follows+followers set = %b", all)
	}
}

func TestCategorySet(t *testing.T) {
	ci := NewCategoryInterner()
	ids := make([]uint32, 300)
	for i := range ids {
		id, ok := ci.Intern(fmt.Sprintf("Cat %d", i))
		if !ok || id != uint32(i) {
			t.Fatalf("Intern #%d = %d %v", i, id, ok)
		}
		ids[i] = id
	}
	if ci.Len() != 300 {
		t.Fatalf("Len = %d", ci.Len())
	}
	if id, ok := ci.Intern("cat_5"); !ok || id != 5 {
		t.Fatalf("re-intern of normalised name = %d %v", id, ok)
	}
	if id, ok := ci.Lookup(" CAT 7 "); !ok || id != 7 {
		t.Fatalf("Lookup folds case and spaces: %d %v", id, ok)
	}
	if _, ok := ci.Lookup("nope"); ok {
		t.Fatal("Lookup found an unknown name")
	}
	if _, ok := ci.Intern("   "); ok {
		t.Fatal("Intern accepted a blank name")
	}
	cases := []struct {
		name string
		a, b []uint32
		want bool
	}{
		{"empty", nil, nil, false},
		{"low hit", []uint32{1, 2}, []uint32{2}, true},
		{"low miss", []uint32{1, 2}, []uint32{3, 64}, false},
		{"second word", []uint32{64, 127}, []uint32{127}, true},
		{"ext hit", []uint32{5, 200, 250}, []uint32{250, 299}, true},
		{"ext miss", []uint32{128, 200}, []uint32{129, 201, 299}, false},
		{"ext vs low", []uint32{128}, []uint32{0}, false},
		{"mixed hit", []uint32{0, 299}, []uint32{1, 299}, true},
	}
	for _, c := range cases {
		var a, b CategorySet
		for _, id := range c.a {
			a.Add(id)
			a.Add(id) // idempotent
		}
		for _, id := range c.b {
			b.Add(id)
		}
		if a.Intersects(b) != c.want || b.Intersects(a) != c.want {
			t.Errorf("%s: Intersects = %v", c.name, a.Intersects(b))
		}
		for _, id := range c.a {
			if !a.Has(id) {
				t.Errorf("%s: Has(%d) false", c.name, id)
			}
		}
		if a.Empty() != (len(c.a) == 0) {
			t.Errorf("%s: Empty = %v", c.name, a.Empty())
		}
	}
	// Copies do not share later additions.
	var s CategorySet
	s.Add(200)
	c := s
	c.Add(150)
	if s.Has(150) || !c.Has(150) || !c.Has(200) {
		t.Fatal("Add on a copy leaked into the original")
	}
	set := ci.Set([]string{"Cat 1", "cat_299", "", "new one"})
	if !set.Has(1) || !set.Has(299) || !set.Has(300) || set.Has(2) {
		t.Fatalf("Set = %+v", set)
	}
}

func meta(ty EventType, ca, ticker bool, cats CategorySet) EventMeta {
	return EventMeta{Type: ty, HasCA: ca, HasTicker: ticker, Categories: cats}
}

func TestFilterAllows(t *testing.T) {
	ci := NewCategoryInterner()
	founders := ci.Set([]string{"founders"})
	perp := ci.Set([]string{"perp_coins", "exchanges"})
	var none CategorySet
	for i := 0; i < 200; i++ { // push a category beyond the inline bits
		ci.Intern(fmt.Sprintf("filler%d", i))
	}
	far := ci.Set([]string{"far away"})

	cases := []struct {
		name string
		f    Filter
		m    EventMeta
		want bool
	}{
		{"zero filter", Filter{}, meta(TypeTweet, false, false, none), true},
		{"no filters", NewFilter(false, false, nil, nil, ci), meta(TypeUpdateBio, false, false, none), true},
		{"type in", NewFilter(false, false, []EventType{TypeTweet, TypeFollow}, nil, ci), meta(TypeFollow, false, false, none), true},
		{"type out", NewFilter(false, false, []EventType{TypeTweet}, nil, ci), meta(TypeRetweet, false, false, none), false},
		{"type none never matches a set filter", NewFilter(false, false, []EventType{TypeTweet}, nil, ci), meta(TypeNone, false, false, none), false},
		{"onlyCA post with CA", NewFilter(true, false, nil, nil, ci), meta(TypeReply, true, false, none), true},
		{"onlyCA post without CA", NewFilter(true, false, nil, nil, ci), meta(TypeQuote, false, true, none), false},
		{"onlyCA does not gate follows", NewFilter(true, false, nil, nil, ci), meta(TypeFollow, false, false, none), true},
		{"onlyCA does not gate deletions", NewFilter(true, false, nil, nil, ci), meta(TypeDeleted, false, false, none), true},
		{"onlyTicker post with tag", NewFilter(false, true, nil, nil, ci), meta(TypeTweet, false, true, none), true},
		{"onlyTicker post without tag", NewFilter(false, true, nil, nil, ci), meta(TypeTweet, true, false, none), false},
		{"onlyTicker does not gate profile", NewFilter(false, true, nil, nil, ci), meta(TypeUpdateName, false, false, none), true},
		{"both need both", NewFilter(true, true, nil, nil, ci), meta(TypeTweet, true, false, none), false},
		{"both satisfied", NewFilter(true, true, nil, nil, ci), meta(TypeTweet, true, true, none), true},
		{"category hit", NewFilter(false, false, nil, []string{"Perp Coins"}, ci), meta(TypeTweet, false, false, perp), true},
		{"category miss", NewFilter(false, false, nil, []string{"founders"}, ci), meta(TypeTweet, false, false, perp), false},
		{"category excludes uncategorised", NewFilter(false, false, nil, []string{"founders"}, ci), meta(TypeFollow, false, false, none), false},
		{"category applies to profile events", NewFilter(false, false, nil, []string{"founders"}, ci), meta(TypeUpdateBio, false, false, founders), true},
		{"category beyond inline bits", NewFilter(false, false, nil, []string{"Far Away", "founders"}, ci), meta(TypeTweet, false, false, far), true},
		{"category beyond inline bits miss", NewFilter(false, false, nil, []string{"filler150"}, ci), meta(TypeTweet, false, false, far), false},
		{"unknown category matches nothing", NewFilter(false, false, nil, []string{"ghosts"}, ci), meta(TypeTweet, false, false, founders), false},
		{"all combined pass", NewFilter(true, false, []EventType{TypeTweet}, []string{"founders"}, ci), meta(TypeTweet, true, false, founders), true},
		{"all combined type fails", NewFilter(true, false, []EventType{TypeTweet}, []string{"founders"}, ci), meta(TypeReply, true, false, founders), false},
	}
	for _, c := range cases {
		if got := c.f.Allows(c.m); got != c.want {
			t.Errorf("%s: Allows = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFilterResolvesLaterCategories(t *testing.T) {
	ci := NewCategoryInterner()
	f := NewFilter(false, false, nil, []string{"Coin", "whales"}, ci)
	copyBefore := f
	if f.Allows(meta(TypeTweet, false, false, CategorySet{})) {
		t.Fatal("uncategorised account passed a category filter")
	}
	coin := ci.Set([]string{"coin"}) // first account with the category appears later
	if !f.Allows(meta(TypeTweet, false, false, coin)) {
		t.Fatal("filter did not pick up a category interned after login")
	}
	if len(f.pending) != 1 || f.pending[0] != "whales" {
		t.Fatalf("pending = %v", f.pending)
	}
	if !copyBefore.Allows(meta(TypeTweet, false, false, coin)) {
		t.Fatal("a copy of the filter did not resolve on its own")
	}
	other := ci.Set([]string{"other"})
	if f.Allows(meta(TypeTweet, false, false, other)) {
		t.Fatal("unrelated category passed")
	}
}

// TestFilterUnknownTypesOnly: `types` naming only labels the engine does not
// know is a filter that matches nothing (filters only remove events), not an
// error and not "every type".
func TestFilterUnknownTypesOnly(t *testing.T) {
	l, err := DecodeLogin([]byte(`{"op":2,"d":{"api_key":"k","types":["update_banner","Some Future Type"]}}`), NewCategoryInterner())
	if err != nil {
		t.Fatalf("DecodeLogin: %v", err)
	}
	if l.Filter.Passthrough() {
		t.Fatal("a filter of unknown types is a passthrough")
	}
	for ty := TypeTweet; ty < eventTypeCount; ty++ {
		if l.Filter.Allows(EventMeta{Type: ty}) {
			t.Fatalf("a filter of unknown types let %s through", ty)
		}
	}
}

func TestFilterAccessors(t *testing.T) {
	f := NewFilter(true, false, []EventType{TypeFollow, TypeTweet}, []string{"x"}, nil)
	if !f.OnlyCA() || f.OnlyTicker() || !f.HasCategories() || f.Passthrough() {
		t.Fatalf("accessors of %+v", f)
	}
	if got := f.Types(); !slices.Equal(got, []EventType{TypeTweet, TypeFollow}) {
		t.Fatalf("Types = %v", got)
	}
	var z Filter
	if !z.Passthrough() || z.Types() != nil {
		t.Fatal("zero filter is not a passthrough")
	}
}

func TestDecodeLogin(t *testing.T) {
	ci := NewCategoryInterner()
	ci.Set([]string{"founders", "perp_coins"})
	type want struct {
		key                    string
		code                   string // error code; "" for success
		onlyCA, onlyTicker     bool
		types                  []EventType
		cats, pass, hasCatsSet bool
	}
	cases := []struct {
		name string
		in   string
		w    want
	}{
		{"key string", `{"op":2,"d":"dt_abc"}`, want{key: "dt_abc", pass: true}},
		{"key string trimmed", `{"op":2,"d":"  dt_abc "}`, want{key: "dt_abc", pass: true}},
		{"escaped key", `{"op":2,"d":"dt_\u0061bc"}`, want{key: "dt_abc", pass: true}},
		{"op 2.0", `{"op":2.0,"d":"k"}`, want{key: "k", pass: true}},
		{"op 2e0", `{"d":"k","op":2e0}`, want{key: "k", pass: true}},
		{"object api_key", `{"op":2,"d":{"api_key":"dt_x"}}`, want{key: "dt_x", pass: true}},
		{"object apiKey", `{"op":2,"d":{"apiKey":"dt_y"}}`, want{key: "dt_y", pass: true}},
		{"api_key wins", `{"op":2,"d":{"apiKey":"b","api_key":"a"}}`, want{key: "a", pass: true}},
		{"empty api_key falls back", `{"op":2,"d":{"api_key":"","apiKey":"b"}}`, want{key: "b", pass: true}},
		{"unknown fields ignored", `{"op":2,"d":{"api_key":"k","extra":[1,{}]},"s":null}`, want{key: "k", pass: true}},
		{"filters", `{"op":2,"d":{"api_key":"k","onlyCA":true,"onlyTicker":false,"types":["Retweet","update bio"],"categories":["Perp Coins"]}}`,
			want{key: "k", onlyCA: true, types: []EventType{TypeRetweet, TypeUpdateBio}, hasCatsSet: true}},
		{"null filters", `{"op":2,"d":{"api_key":"k","onlyCA":null,"types":null,"categories":null}}`, want{key: "k", pass: true}},
		{"empty arrays disable", `{"op":2,"d":{"api_key":"k","types":[],"categories":[]}}`, want{key: "k", pass: true}},
		{"All disables types", `{"op":2,"d":{"api_key":"k","types":["tweet","All"]}}`, want{key: "k", pass: true}},
		{"all disables categories", `{"op":2,"d":{"api_key":"k","categories":["founders","ALL"]}}`, want{key: "k", pass: true}},
		{"blank categories ignored", `{"op":2,"d":{"api_key":"k","categories":[" ",""]}}`, want{key: "k", pass: true}},
		{"onlyTicker", `{"op":2,"d":{"api_key":"k","onlyTicker":true}}`, want{key: "k", onlyTicker: true}},
		{"unknown type ignored", `{"op":2,"d":{"api_key":"k","types":["tweet","update_banner"]}}`, want{key: "k", types: []EventType{TypeTweet}}},

		{"empty key string", `{"op":2,"d":""}`, want{code: CodeKeyMissing}},
		{"blank key string", `{"op":2,"d":"   "}`, want{code: CodeKeyMissing}},
		{"object without key", `{"op":2,"d":{"onlyCA":true}}`, want{code: CodeKeyMissing}},
		{"object with empty keys", `{"op":2,"d":{"api_key":"","apiKey":" "}}`, want{code: CodeKeyMissing}},

		{"op string", `{"op":"2","d":"k"}`, want{code: CodeLoginInvalid}},
		{"op 2.5", `{"op":2.5,"d":"k"}`, want{code: CodeLoginInvalid}},
		{"op 1", `{"op":1,"d":"k"}`, want{code: CodeLoginInvalid}},
		{"op -2", `{"op":-2,"d":"k"}`, want{code: CodeLoginInvalid}},
		{"op huge", `{"op":2e999,"d":"k"}`, want{code: CodeLoginInvalid}},
		{"op missing", `{"d":"k"}`, want{code: CodeLoginInvalid}},
		{"op null", `{"op":null,"d":"k"}`, want{code: CodeLoginInvalid}},
		{"op true", `{"op":true,"d":"k"}`, want{code: CodeLoginInvalid}},
		{"d missing", `{"op":2}`, want{code: CodeLoginInvalid}},
		{"d null", `{"op":2,"d":null}`, want{code: CodeLoginInvalid}},
		{"d number", `{"op":2,"d":5}`, want{code: CodeLoginInvalid}},
		{"d array", `{"op":2,"d":["k"]}`, want{code: CodeLoginInvalid}},
		{"api_key number", `{"op":2,"d":{"api_key":5}}`, want{code: CodeLoginInvalid}},
		{"onlyCA string", `{"op":2,"d":{"api_key":"k","onlyCA":"true"}}`, want{code: CodeLoginInvalid}},
		{"types not array", `{"op":2,"d":{"api_key":"k","types":"tweet"}}`, want{code: CodeLoginInvalid}},
		{"types number item", `{"op":2,"d":{"api_key":"k","types":[1]}}`, want{code: CodeLoginInvalid}},
		{"categories not strings", `{"op":2,"d":{"api_key":"k","categories":[true]}}`, want{code: CodeLoginInvalid}},
		{"not JSON", `op=2`, want{code: CodeLoginInvalid}},
		{"trailing garbage", `{"op":2,"d":"k"} x`, want{code: CodeLoginInvalid}},
		{"array frame", `[2,"k"]`, want{code: CodeLoginInvalid}},
		{"null frame", `null`, want{code: CodeLoginInvalid}},
		{"empty frame", ``, want{code: CodeLoginInvalid}},
	}
	for _, c := range cases {
		l, err := DecodeLogin([]byte(c.in), ci)
		if c.w.code != "" {
			var le *LoginError
			if !errors.As(err, &le) || le.Code != c.w.code || le.Message == "" {
				t.Errorf("%s: err = %v, want code %s", c.name, err, c.w.code)
				continue
			}
			if r, _ := DisconnectReason(c.w.code); le.Reason() != r {
				t.Errorf("%s: reason %q", c.name, le.Reason())
			}
			if l.Key != "" {
				t.Errorf("%s: rejected login has key %q", c.name, l.Key)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: unexpected error %v", c.name, err)
			continue
		}
		f := &l.Filter
		if l.Key != c.w.key || f.OnlyCA() != c.w.onlyCA || f.OnlyTicker() != c.w.onlyTicker ||
			!slices.Equal(f.Types(), c.w.types) || f.Passthrough() != c.w.pass || f.HasCategories() != c.w.hasCatsSet {
			t.Errorf("%s: got key %q onlyCA %v onlyTicker %v types %v pass %v cats %v",
				c.name, l.Key, f.OnlyCA(), f.OnlyTicker(), f.Types(), f.Passthrough(), f.HasCategories())
		}
	}
}

func TestDecodeLoginLimits(t *testing.T) {
	many := `{"op":2,"d":{"api_key":"k","types":[` + repeatJoin(`"tweet"`, MaxLoginTypes+1) + `]}}`
	if _, err := DecodeLogin([]byte(many), nil); err == nil {
		t.Error("accepted too many types")
	}
	ok := `{"op":2,"d":{"api_key":"k","types":[` + repeatJoin(`"tweet"`, MaxLoginTypes) + `]}}`
	if _, err := DecodeLogin([]byte(ok), nil); err != nil {
		t.Errorf("refused %d types: %v", MaxLoginTypes, err)
	}
	cats := `{"op":2,"d":{"api_key":"k","categories":[` + repeatJoin(`"c"`, MaxLoginCategories+1) + `]}}`
	if _, err := DecodeLogin([]byte(cats), nil); err == nil {
		t.Error("accepted too many categories")
	}
	long := fmt.Sprintf(`{"op":2,"d":{"api_key":"k","categories":["%0*d"]}}`, MaxLoginCategoryLen+1, 0)
	if _, err := DecodeLogin([]byte(long), nil); err == nil {
		t.Error("accepted an over-long category")
	}
}

func repeatJoin(s string, n int) string {
	out := s
	for i := 1; i < n; i++ {
		out += "," + s
	}
	return out
}

func TestDecodeLoginFilterEndToEnd(t *testing.T) {
	ci := NewCategoryInterner()
	exch := ci.Set([]string{"exchanges"})
	l, err := DecodeLogin([]byte(`{"op":2,"d":{"apiKey":"dt_k","onlyCA":true,"types":["Tweet","Follow"],"categories":["Exchanges"]}}`), ci)
	if err != nil {
		t.Fatal(err)
	}
	f := l.Filter
	checks := []struct {
		m    EventMeta
		want bool
	}{
		{meta(TypeTweet, true, false, exch), true},
		{meta(TypeTweet, false, false, exch), false},
		{meta(TypeFollow, false, false, exch), true},
		{meta(TypeFollow, false, false, CategorySet{}), false},
		{meta(TypeUnfollow, false, false, exch), false},
	}
	for i, c := range checks {
		if f.Allows(c.m) != c.want {
			t.Errorf("check %d: Allows = %v", i, !c.want)
		}
	}
}

func BenchmarkFilterAllows(b *testing.B) {
	ci := NewCategoryInterner()
	cats := ci.Set([]string{"founders", "coin"})
	other := ci.Set([]string{"exchanges"})
	metas := []EventMeta{
		meta(TypeTweet, true, true, cats), meta(TypeReply, false, false, other),
		meta(TypeFollow, false, false, cats), meta(TypeUpdateBio, false, false, CategorySet{}),
	}
	filters := map[string]Filter{
		"passthrough": {},
		"types":       NewFilter(false, false, []EventType{TypeTweet, TypeFollow}, nil, ci),
		"all":         NewFilter(true, true, []EventType{TypeTweet, TypeFollow}, []string{"coin", "founders"}, ci),
		"pending":     NewFilter(false, false, nil, []string{"coin", "never_seen"}, ci),
	}
	for _, name := range []string{"passthrough", "types", "all", "pending"} {
		f := filters[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; b.Loop(); i++ {
				if f.Allows(metas[i&3]) {
					n++
				}
			}
			_ = n
		})
	}
}

func BenchmarkDecodeLogin(b *testing.B) {
	ci := NewCategoryInterner()
	in := []byte(`{"op":2,"d":{"api_key":"dt_0123456789abcdef","onlyCA":true,"types":["tweet","Update Bio"],"categories":["founders"]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeLogin(in, ci); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCategoryMatchKey: case, spaces and underscores do not matter.
func TestCategoryMatchKey(t *testing.T) {
	ci := NewCategoryInterner()
	set := ci.Set([]string{"perp_coins"})
	for _, name := range []string{"PerpCoins", "Perp  Coins", "perp_coins", " PERP COINS ", "perp__coins"} {
		f := NewFilter(false, false, nil, []string{name}, ci)
		if !f.Allows(EventMeta{Type: TypeTweet, Categories: set}) {
			t.Errorf("categories [%q] does not match perp_coins", name)
		}
	}
	f := NewFilter(false, false, nil, []string{"perp"}, ci)
	if f.Allows(EventMeta{Type: TypeTweet, Categories: set}) {
		t.Error("categories [perp] matches perp_coins")
	}
}
