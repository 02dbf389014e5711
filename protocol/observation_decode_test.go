package protocol

import (
	"os"
	"strings"
	"testing"
)

func TestDecodeExampleObservations(t *testing.T) {
	body, err := os.ReadFile("testdata/observations.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := SplitNDJSON(body)
	seen := map[string]bool{}
	for i, l := range lines {
		o, err := DecodeObservation(l, 1)
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if o.Key == "" {
			t.Errorf("line %d (%s): empty routing key", i, o.Kind)
		}
		seen[o.Kind] = true
	}
	for _, k := range Kinds {
		if !seen[k] {
			t.Errorf("example file has no %s line", k)
		}
	}
}

func TestDecodeObservationRejects(t *testing.T) {
	cases := []struct{ line, want string }{
		{`not json`, "invalid JSON"},
		{`{}`, "missing field: kind"},
		{`{"kind":"nope"}`, "unknown kind"},
		{`{"kind":"user","id":"x1","handle":"a"}`, "invalid field id"},
		{`{"kind":"user","id":"1","handle":"bad handle"}`, "invalid field handle"},
		{`{"kind":"user","id":"1","handle":"ok","followers":-1}`, "negative"},
		{`{"kind":"user","id":"1","handle":"ok","verification_type":"gold"}`, "verification_type"},
		{`{"kind":"post","id":"1","created_at":1,"type":"story","author":{"id":"1","handle":"a"}}`, "invalid field type"},
		{`{"kind":"post","id":"1","type":"post","author":{"id":"1","handle":"a"}}`, "created_at"},
		{`{"kind":"post","id":"1","created_at":1,"type":"post","author":{"id":"1"}}`, "author.handle"},
		{`{"kind":"post","id":"1","created_at":"soon","type":"post"}`, "invalid field"},
		{`{"kind":"post_deleted","tweet_id":"1"}`, "missing field: handle"},
		{`{"kind":"following","handle":"a"}`, "missing field: users"},
		{`{"kind":"following","handle":"a","users":[{"handle":"b"}]}`, "users[0].id"},
		{`{"kind":"communities","handle":"a","communities":[{"name":"x"}]}`, "communities[0].id"},
		{`{"kind":"engagement","tweet_id":"abc"}`, "tweet_id"},
		{`{"kind":"trending","tweet":{"tweet_id":"1"}}`, "category"},
		{`{"kind":"launchpad","event_type":"rugged","mint":"m","wallet_address":"w"}`, "event_type"},
		{`{"kind":"callout","mint":"m"}`, "caller_wallet"},
		{`{"kind":"market_cap","mint":"m","market_cap":-3}`, "market_cap"},
	}
	for _, c := range cases {
		_, err := DecodeObservation([]byte(c.line), 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", c.line, err, c.want)
		}
	}
}

func TestDecodeNormalizesHandles(t *testing.T) {
	o, err := DecodeObservation([]byte(`{"kind":"user","id":"7","handle":"@SolWhale","categories":["Perp Coins"]}`), 5)
	if err != nil {
		t.Fatal(err)
	}
	if o.Key != "solwhale" || o.User.Handle != "solwhale" || o.DetectedAt != 5 {
		t.Fatalf("got key %q handle %q at %d", o.Key, o.User.Handle, o.DetectedAt)
	}
	if o.User.Categories[0] != "perp_coins" {
		t.Fatalf("category %q", o.User.Categories[0])
	}
	if o.User.Spelling != "SolWhale" || o.User.Display() != "SolWhale" {
		t.Fatalf("spelling %q, display %q, want SolWhale", o.User.Spelling, o.User.Display())
	}
}

// A post keeps its author's spelling for the payload; its key is lowercase.
func TestDecodePostKeepsSpelling(t *testing.T) {
	o, err := DecodeObservation([]byte(`{"kind":"post","id":"1","created_at":1,"type":"post","author":{"id":"9","handle":" @ElonMusk"}}`), 5)
	if err != nil {
		t.Fatal(err)
	}
	if o.Key != "elonmusk" || o.Post.Author.Handle != "ElonMusk" {
		t.Fatalf("key %q author.handle %q, want elonmusk and ElonMusk", o.Key, o.Post.Author.Handle)
	}
}

func TestHandleForms(t *testing.T) {
	for in, want := range map[string][2]string{
		"ElonMusk":       {"ElonMusk", "elonmusk"},
		" @Whale_Alert ": {"Whale_Alert", "whale_alert"},
		"@@a":            {"@a", "@a"},
		"abc":            {"abc", "abc"},
	} {
		if sp, key := HandleSpelling(in), NormalizeHandle(in); sp != want[0] || key != want[1] {
			t.Errorf("%q: spelling %q key %q, want %q %q", in, sp, key, want[0], want[1])
		}
	}
	if (&UserObs{Handle: "a"}).Display() != "a" {
		t.Errorf("Display of an unvalidated snapshot is not its handle")
	}
}

func TestSplitBodies(t *testing.T) {
	if got := SplitNDJSON([]byte("a\n\n  \nb\r\nc")); len(got) != 3 || string(got[1]) != "b" {
		t.Fatalf("ndjson split: %q", got)
	}
	got, err := SplitArray([]byte(` [ {"a":1}, {"b":2} ] `))
	if err != nil || len(got) != 2 || string(got[1]) != `{"b":2}` {
		t.Fatalf("array split: %q %v", got, err)
	}
	if _, err := SplitArray([]byte(`{"a":1}`)); err != ErrNotArray {
		t.Fatalf("object accepted as array: %v", err)
	}
}

func TestLeadingKindFastPath(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"kind":"user","id":"1","handle":"a"}`, ""},
		{`{"kind":"user","id":"1","handle":"a"`, "invalid JSON"},
		{`{"kind":"user","id":1}`, "invalid field"},
		{`{"kind":"us\u0065r","id":"1","handle":"a"}`, ""}, // escaped: general path, same result
		{`{"kind":"nope"}`, "unknown kind"},
	}
	for _, c := range cases {
		_, err := DecodeObservation([]byte(c.line), 1)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.line, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.line, err, c.want)
		}
	}
	if k, ok := leadingKind([]byte(`{"kind":"post_deleted","handle":"a"}`)); !ok || k != "post_deleted" {
		t.Errorf("fast path missed: %q %v", k, ok)
	}
	if _, ok := leadingKind([]byte(` {"kind":"user"}`)); ok {
		t.Error("fast path took a line with leading space")
	}
}
