package protocol

import (
	stdjson "encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestEventKinds(t *testing.T) {
	cases := []struct {
		k              EventKind
		name, mod, pfx string
		tweet, taskID  bool
	}{
		{EventKindPostNew, "social.post.new", "realtime", "evt_", true, false},
		{EventKindPostUpdate, "social.post.update", "realtime", "evt_", true, false},
		{EventKindTweetDeleted, "social.tweet.deleted", "realtime", "evt_del_", false, false},
		{EventKindFollowingNew, "social.following.new", "follows", "evt_f_", false, true},
		{EventKindFollowingRemoved, "social.following.removed", "follows", "evt_fr_", false, true},
		{EventKindFollowerNew, "social.follower.new", "followers", "evt_fl_", false, true},
		{EventKindProfileUpdate, "social.profile.update", "profile_watch", "evt_p_", false, false},
		{EventKindNone, "", "", "", false, false},
		{eventKindCount, "", "", "", false, false},
	}
	for _, c := range cases {
		if c.k.Name() != c.name || c.k.String() != c.name || c.k.Module() != c.mod || c.k.IDPrefix() != c.pfx ||
			c.k.IsTweet() != c.tweet || c.k.HasTaskID() != c.taskID {
			t.Errorf("kind %d: got %q %q %q %v %v", c.k, c.k.Name(), c.k.Module(), c.k.IDPrefix(), c.k.IsTweet(), c.k.HasTaskID())
		}
		if c.name == "" {
			continue
		}
		if k, ok := EventKindByName(c.name); !ok || k != c.k {
			t.Errorf("EventKindByName(%q) = %v, %v", c.name, k, ok)
		}
	}
	if k, ok := EventKindByName(EventTraceTweetNew); !ok || k != EventKindPostNew {
		t.Errorf("EventKindByName(social.tweet.new) = %v, %v", k, ok)
	}
	if _, ok := EventKindByName("social.post.nope"); ok {
		t.Error("EventKindByName accepted an unknown name")
	}
}

func TestEventIDs(t *testing.T) {
	if got := TweetEventID("1790000000000000001"); got != "evt_1790000000000000001" {
		t.Fatalf("TweetEventID = %q", got)
	}
	cases := []struct {
		k      EventKind
		handle string
		ms     int64
		want   string
	}{
		{EventKindFollowingNew, "alice", 1700000000123, "evt_f_alice_1700000000123"},
		{EventKindFollowingRemoved, "bob_the_builder", 1700000000124, "evt_fr_bob_the_builder_1700000000124"},
		{EventKindProfileUpdate, "c", 1, "evt_p_c_1"},
		{EventKindFollowerNew, "x_", 1700000000125, "evt_fl_x__1700000000125"},
		{EventKindTweetDeleted, "_lead", 1700000000126, "evt_del__lead_1700000000126"},
	}
	for _, c := range cases {
		id := EventID(c.k, c.handle, c.ms)
		if id != c.want {
			t.Errorf("EventID = %q, want %q", id, c.want)
		}
		k, tid, h, ms, err := ParseEventID(id)
		if err != nil || k != c.k || tid != "" || h != c.handle || ms != c.ms {
			t.Errorf("ParseEventID(%q) = %v %q %q %d %v", id, k, tid, h, ms, err)
		}
	}
}

func TestParseEventID(t *testing.T) {
	good := []struct {
		id     string
		k      EventKind
		tid, h string
		ms     int64
	}{
		{"evt_123", EventKindPostNew, "123", "", 0},
		{"evt_f_Alice_5", EventKindFollowingNew, "", "alice", 5},
		{"evt_fr_a_b_c_1700000000000", EventKindFollowingRemoved, "", "a_b_c", 1700000000000},
		{"evt_fl_f_9", EventKindFollowerNew, "", "f", 9},
		{"evt_p_del_7", EventKindProfileUpdate, "", "del", 7},
		{"evt_del_p_8", EventKindTweetDeleted, "", "p", 8},
	}
	for _, c := range good {
		k, tid, h, ms, err := ParseEventID(c.id)
		if err != nil || k != c.k || tid != c.tid || h != c.h || ms != c.ms {
			t.Errorf("ParseEventID(%q) = %v %q %q %d %v", c.id, k, tid, h, ms, err)
		}
	}
	bad := []string{
		"", "evt_", "evt", "123", "EVT_123", "evt_12a", "evt_-1", "evt_123456789012345678901",
		"evt_f_", "evt_f_alice", "evt_f_alice_", "evt_f__5", "evt_f_alice_x", "evt_f_alice_-5",
		"evt_f_alice_+5", "evt_f_alice_0", "evt_f_al-ice_5", "evt_x_alice_5", "evt_f_alice_99999999999999999999",
		"evt_fr_" + strings.Repeat("a", 51) + "_5", "xevt_123", "evt_f_alice_5 ",
	}
	for _, id := range bad {
		_, _, _, _, err := ParseEventID(id)
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != CodeBadRequest {
			t.Errorf("ParseEventID(%q) err = %v, want 400 bad_request", id, err)
		}
	}
}

func sp(s string) *string { return &s }
func ip(n int64) *int64   { return &n }
func bp(b bool) *bool     { return &b }

func TestAppendEventD(t *testing.T) {
	data := []byte(`{"x":1}`)
	cases := []struct {
		name string
		h    EventHeader
		data []byte
		want string
	}{
		{"post new", EventHeader{Kind: EventKindPostNew, EventID: "evt_1", EventTime: 99, Handle: "alice", TaskID: "7"}, data,
			`{"event":"social.post.new","event_id":"evt_1","task_info":{"handle":"alice"},"data":{"x":1}}`},
		{"post delayed", EventHeader{Kind: EventKindPostNew, EventID: "evt_1", Handle: "alice", Delayed: true, DelayMs: 45000}, data,
			`{"event":"social.post.new","event_id":"evt_1","task_info":{"handle":"alice"},"data":{"x":1},"delayed":true,"delay_ms":45000}`},
		{"post replayed", EventHeader{Kind: EventKindPostUpdate, EventID: "evt_1", Handle: "alice", Replayed: true}, data,
			`{"event":"social.post.update","event_id":"evt_1","task_info":{"handle":"alice"},"data":{"x":1},"replayed":true}`},
		{"follow", EventHeader{Kind: EventKindFollowingNew, EventID: "evt_f_alice_5", EventTime: 5, Handle: "alice", TaskID: "42"}, data,
			`{"event":"social.following.new","event_id":"evt_f_alice_5","event_time":5,"task_info":{"handle":"alice","id":"42"},"data":{"x":1}}`},
		{"follower", EventHeader{Kind: EventKindFollowerNew, EventID: "evt_fl_a_6", EventTime: 6, Handle: "a"}, data,
			`{"event":"social.follower.new","event_id":"evt_fl_a_6","event_time":6,"task_info":{"handle":"a","id":""},"data":{"x":1}}`},
		{"profile", EventHeader{Kind: EventKindProfileUpdate, EventID: "evt_p_a_7", EventTime: 7, Handle: "a", TaskID: "ignored"}, data,
			`{"event":"social.profile.update","event_id":"evt_p_a_7","event_time":7,"task_info":{"handle":"a"},"data":{"x":1}}`},
		{"deleted nil data", EventHeader{Kind: EventKindTweetDeleted, EventID: "evt_del_a_8", EventTime: 8, Handle: "a"}, nil,
			`{"event":"social.tweet.deleted","event_id":"evt_del_a_8","event_time":8,"task_info":{"handle":"a"},"data":null}`},
	}
	for _, c := range cases {
		got := string(AppendEventD(nil, &c.h, c.data))
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		frame := string(AppendEventFrame([]byte("pre"), &c.h, c.data))
		if frame != "pre"+`{"op":0,"d":`+c.want+"}" {
			t.Errorf("%s: AppendEventFrame = %s", c.name, frame)
		}
		if w := string(AppendEvent(nil, []byte(c.want))); w != frame[3:] {
			t.Errorf("%s: AppendEvent = %s", c.name, w)
		}
	}
}

func TestSmallDataEncoders(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"following full", string(AppendFollowingData(nil, &FollowingData{ID: "1", Handle: "bob", Name: sp("Bob \"B\""),
			Bio: sp("line\nbreak"), Followers: ip(10), Following: ip(0), Protected: bp(false)})),
			`{"id":"1","handle":"bob","name":"Bob \"B\"","bio":"line\nbreak","followers":10,"following":0,"protected":false}`},
		{"following protected", string(AppendFollowingData(nil, &FollowingData{ID: "1", Handle: "b", Name: sp(""), Protected: bp(true)})),
			`{"id":"1","handle":"b","name":"","bio":null,"followers":null,"following":null,"protected":true}`},
		{"unfollow unavailable", string(AppendFollowingData(nil, ptr(UnavailableFollowing("9")))),
			`{"id":"9","handle":"","name":null,"bio":null,"followers":null,"following":null,"protected":null}`},
		{"follower", string(AppendFollowerData(nil, &FollowerData{ID: "3", Handle: "c", Name: sp("C")})),
			`{"id":"3","handle":"c","name":"C"}`},
		{"follower null name", string(AppendFollowerData(nil, &FollowerData{ID: "3", Handle: "c"})),
			`{"id":"3","handle":"c","name":null}`},
		{"deleted known", string(AppendDeletedData(nil, sp("55"), sp("gm"))), `{"tweet_id":"55","text":"gm"}`},
		{"deleted unknown", string(AppendDeletedData(nil, nil, nil)), `{"tweet_id":null,"text":null}`},
		{"profile", string(AppendProfileData(nil, ProfileChange{Field: "bio", Prev: "", Updated: "new </bio>"})),
			`{"field":"bio","prev":"","updated":"new </bio>"}`},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
		if !stdjson.Valid([]byte(c.got)) {
			t.Errorf("%s: invalid JSON", c.name)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestProfileChanges(t *testing.T) {
	base := func() *UserObs {
		return &UserObs{ID: "1", Handle: "alice", Name: "Alice", Bio: "gm", Avatar: "https://a/1.jpg",
			BannerURL: sp("https://b/1.jpg"), Location: nil, Website: sp(""), Followers: 10, Following: 5,
			Verified: false, PinnedPost: []string{"100"}, Categories: []string{"founders"}}
	}
	pc := func(f, p, u string) ProfileChange { return ProfileChange{Field: f, Prev: p, Updated: u} }
	cases := []struct {
		name string
		edit func(u *UserObs)
		want []ProfileChange
	}{
		{"no change", func(u *UserObs) {}, nil},
		{"counts, categories, verification type, suspension are not fields", func(u *UserObs) {
			u.Followers, u.Following, u.Categories, u.VerificationType, u.Suspended = 99, 98, nil, sp("blue"), true
		}, nil},
		{"null equals empty", func(u *UserObs) { u.Location = sp(""); u.Website = nil }, nil},
		{"name under both fields", func(u *UserObs) { u.Name = "Alice 2" },
			[]ProfileChange{pc("name", "Alice", "Alice 2"), pc("display_name", "Alice", "Alice 2")}},
		{"bio under both fields", func(u *UserObs) { u.Bio = "" },
			[]ProfileChange{pc("bio", "gm", ""), pc("description", "gm", "")}},
		{"avatar under both fields", func(u *UserObs) { u.Avatar = "https://a/2.jpg" },
			[]ProfileChange{pc("avatar", "https://a/1.jpg", "https://a/2.jpg"), pc("avatar_url", "https://a/1.jpg", "https://a/2.jpg")}},
		{"banner removed", func(u *UserObs) { u.BannerURL = nil }, []ProfileChange{pc("banner_url", "https://b/1.jpg", "")}},
		{"location set", func(u *UserObs) { u.Location = sp("Berlin") }, []ProfileChange{pc("location", "", "Berlin")}},
		{"website set", func(u *UserObs) { u.Website = sp("https://x.io") }, []ProfileChange{pc("website", "", "https://x.io")}},
		{"verified", func(u *UserObs) { u.Verified = true }, []ProfileChange{pc("verified", "false", "true")}},
		{"pinned added", func(u *UserObs) { u.PinnedPost = []string{"100", "200"} }, []ProfileChange{pc("pinned_post", "100", "100,200")}},
		{"pinned removed", func(u *UserObs) { u.PinnedPost = nil }, []ProfileChange{pc("pinned_post", "100", "")}},
		{"pinned nil vs empty", func(u *UserObs) { u.PinnedPost = []string{} }, []ProfileChange{pc("pinned_post", "100", "")}},
		{"rename", func(u *UserObs) { u.Handle = "alice2" }, []ProfileChange{pc("handle", "alice", "alice2")}},
		{"a change of case alone is no rename", func(u *UserObs) { u.Spelling = "ALICE" }, nil},
		{"several in order", func(u *UserObs) { u.Verified = true; u.Handle = "al"; u.Bio = "x" }, []ProfileChange{
			pc("handle", "alice", "al"), pc("bio", "gm", "x"), pc("description", "gm", "x"), pc("verified", "false", "true")}},
	}
	for _, c := range cases {
		prev, cur := base(), base()
		c.edit(cur)
		got := ProfileChanges(prev, cur)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
	if got := ProfileChanges(nil, base()); got != nil {
		t.Errorf("first snapshot gave %v", got)
	}
	// prev and updated of a rename are spelled as the platform sent them.
	prev, cur := base(), base()
	prev.Spelling, cur.Handle, cur.Spelling = "Alice", "bob_x", "Bob_X"
	if got, want := ProfileChanges(prev, cur), []ProfileChange{pc("handle", "Alice", "Bob_X")}; !reflect.DeepEqual(got, want) {
		t.Errorf("spelled rename: got %v, want %v", got, want)
	}
}

func TestProfileFieldType(t *testing.T) {
	cases := map[string]EventType{
		"handle": TypeUpdateHandle, "bio": TypeUpdateBio, "description": TypeUpdateBio,
		"avatar": TypeUpdatePhoto, "avatar_url": TypeUpdatePhoto, "name": TypeUpdateName,
		"display_name": TypeUpdateName, "banner_url": TypeUpdateBannerURL, "location": TypeUpdateLocation,
		"website": TypeUpdateWebsite, "pinned_post": TypeUpdatePinnedPost, "verified": TypeUpdateVerified,
		"banner": TypeNone, "": TypeNone,
	}
	for f, want := range cases {
		if got := ProfileFieldType(f); got != want {
			t.Errorf("ProfileFieldType(%q) = %v, want %v", f, got, want)
		}
	}
	posts := map[string]EventType{"post": TypeTweet, "repost": TypeRetweet, "quote": TypeQuote, "reply": TypeReply, "x": TypeNone}
	for d, want := range posts {
		if got := PostEventType(d); got != want {
			t.Errorf("PostEventType(%q) = %v, want %v", d, got, want)
		}
	}
}

func sampleTweet() *Tweet {
	return &Tweet{
		ID: "1790000000000000001", CreatedAt: 1700000000000, Type: "quote",
		Text:     "gm $WIF CA " + solPump,
		Cashtags: []string{"WIF"},
		Author: TweetAuthor{ID: "11", Handle: "alice", Name: "Alice", Avatar: "https://a/1.jpg",
			Verification: Verification{IsVerified: true, Type: sp("blue")}, Stats: AuthorStats{Followers: 5, Following: 6}},
		InReplyTo:      &InReplyTo{TweetID: "5", User: "bob"},
		QuotedTweet:    &QuotedTweet{ID: "6", Text: "parent", Author: QuotedAuthor{Handle: "bob", Avatar: "x"}},
		ConversationID: "5",
		Entities:       TweetEntities{Hashtags: stdjson.RawMessage(`[{"text":"gm","indices":[0,2]}]`)},
		Metrics:        TweetMetrics{Likes: ip(3), Views: sp("100")},
		OCRText:        sp("chart " + evmMixed + " and " + solUSDC),
	}
}

func decodeObj(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := stdjson.Unmarshal(b, &m); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return m
}

func TestAppendTweetData(t *testing.T) {
	tw := sampleTweet()
	before := *tw
	core := []string{"id", "created_at", "type", "text", "cashtags", "media", "mentions", "author", "in_reply_to", "possibly_sensitive"}
	full := append(slices.Clone(core), "quoted_tweet", "conversation_id", "entities", "metrics")
	ocr := []string{"ocr_text", "extracted_cas"}
	cases := []struct {
		v    TweetVariant
		keys []string
	}{
		{TweetStandard, full},
		{TweetEnterprise, append(slices.Clone(full), ocr...)},
		{TweetCore, core},
		{TweetCore | TweetEnterprise, append(slices.Clone(core), ocr...)},
	}
	for _, c := range cases {
		b, err := AppendTweetData([]byte("x"), tw, c.v)
		if err != nil || b[0] != 'x' {
			t.Fatalf("variant %d: %v", c.v, err)
		}
		m := decodeObj(t, b[1:])
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := slices.Sorted(slices.Values(c.keys))
		if !slices.Equal(keys, want) {
			t.Errorf("variant %d keys:\n got %v\nwant %v", c.v, keys, want)
		}
		if m["id"] != tw.ID || m["text"] != tw.Text || m["media"] == nil {
			t.Errorf("variant %d: core values %v", c.v, m)
		}
		if c.v&TweetEnterprise != 0 {
			if m["ocr_text"] != *tw.OCRText {
				t.Errorf("ocr_text = %v", m["ocr_text"])
			}
			cas, _ := m["extracted_cas"].([]any)
			if len(cas) != 2 || cas[0] != evmMixed || cas[1] != solUSDC {
				t.Errorf("extracted_cas = %v", m["extracted_cas"])
			}
		}
		if c.v&TweetCore == 0 {
			ent := m["entities"].(map[string]any)
			if _, ok := ent["urls"].([]any); !ok {
				t.Errorf("entities.urls = %v, want []", ent["urls"])
			}
			if _, ok := ent["symbols"].([]any); !ok {
				t.Errorf("entities.symbols = %v, want []", ent["symbols"])
			}
			if h := ent["hashtags"].([]any); len(h) != 1 {
				t.Errorf("entities.hashtags = %v", h)
			}
			if mt := m["metrics"].(map[string]any); mt["likes"] != 3.0 || mt["views"] != "100" || mt["quotes"] != nil {
				t.Errorf("metrics = %v", mt)
			}
		}
	}
	if !reflect.DeepEqual(*tw, before) {
		t.Fatal("AppendTweetData modified its input")
	}
	// No OCR: null and [].
	tw.OCRText, tw.Media, tw.Cashtags = nil, nil, nil
	b, err := AppendTweetData(nil, tw, TweetEnterprise)
	if err != nil {
		t.Fatal(err)
	}
	m := decodeObj(t, b)
	if v, ok := m["ocr_text"]; !ok || v != nil {
		t.Errorf("ocr_text = %v, %v; want null", v, ok)
	}
	if cas, ok := m["extracted_cas"].([]any); !ok || len(cas) != 0 {
		t.Errorf("extracted_cas = %v, want []", m["extracted_cas"])
	}
	if med, ok := m["media"].([]any); !ok || len(med) != 0 {
		t.Errorf("media = %v, want []", m["media"])
	}
	if ct, ok := m["cashtags"].([]any); !ok || len(ct) != 0 {
		t.Errorf("cashtags = %v, want []", m["cashtags"])
	}
	// The standard variant never leaks the OCR text of the observation.
	tw.OCRText = sp("secret ocr")
	b, _ = AppendTweetData(nil, tw, TweetStandard)
	if strings.Contains(string(b), "ocr") {
		t.Errorf("standard variant has OCR fields: %s", b)
	}
}

func TestMetaHelpers(t *testing.T) {
	tw := sampleTweet()
	cats := NewCategoryInterner().Set([]string{"founders"})
	m := PostMeta(EventKindPostNew, tw, cats)
	if m.Kind != EventKindPostNew || m.Type != TypeQuote || !m.HasCA || !m.HasTicker || !m.Categories.Intersects(cats) {
		t.Fatalf("PostMeta = %+v", m)
	}
	tw.Text, tw.Cashtags = "plain", nil
	if m := PostMeta(EventKindPostUpdate, tw, cats); !m.HasCA || m.HasTicker { // CA from OCR
		t.Fatalf("PostMeta with OCR-only CA = %+v", m)
	}
	tw.OCRText = nil
	if m := PostMeta(EventKindPostUpdate, tw, cats); m.HasCA || m.HasTicker {
		t.Fatalf("PostMeta of plain post = %+v", m)
	}
	tw.Text = "buy $btc"
	if m := PostMeta(EventKindPostUpdate, tw, cats); !m.HasTicker {
		t.Fatalf("PostMeta missed a cashtag in text")
	}
	nonPost := map[EventKind]EventType{EventKindFollowingNew: TypeFollow, EventKindFollowingRemoved: TypeUnfollow,
		EventKindFollowerNew: TypeFollower, EventKindTweetDeleted: TypeDeleted}
	for k, want := range nonPost {
		if m := NonPostMeta(k, cats); m.Type != want || m.Kind != k {
			t.Errorf("NonPostMeta(%v) = %+v", k, m)
		}
	}
	if m := ProfileMeta(ProfileChange{Field: "avatar_url"}, cats); m.Type != TypeUpdatePhoto || m.Kind != EventKindProfileUpdate {
		t.Errorf("ProfileMeta = %+v", m)
	}
}

func BenchmarkAppendTweetData(b *testing.B) {
	tw := sampleTweet()
	for _, v := range []struct {
		name string
		v    TweetVariant
	}{{"standard", TweetStandard}, {"enterprise", TweetEnterprise}, {"core", TweetCore}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 4096)
			for b.Loop() {
				buf, _ = AppendTweetData(buf[:0], tw, v.v)
			}
		})
	}
}

func BenchmarkAppendEventFrame(b *testing.B) {
	h := &EventHeader{Kind: EventKindFollowingNew, EventID: "evt_f_alice_1700000000000", EventTime: 1700000000000,
		Handle: "alice", TaskID: "42"}
	u := &FollowingData{ID: "1", Handle: "bob", Name: sp("Bob"), Bio: sp("builder"), Followers: ip(10), Following: ip(2), Protected: bp(false)}
	b.ReportAllocs()
	data := make([]byte, 0, 512)
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		data = AppendFollowingData(data[:0], u)
		buf = AppendEventFrame(buf[:0], h, data)
	}
}
