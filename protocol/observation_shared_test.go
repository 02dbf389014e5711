package protocol

import (
	"bytes"
	"os"
	"reflect"
	"testing"
	"unsafe"

	stdjson "encoding/json"
)

// bodyOf is the decoded body of o, whatever its kind.
func bodyOf(o *Observation) any {
	for _, b := range []any{o.User, o.Post, o.PostDeleted, o.Following, o.FollowersNew, o.Communities,
		o.Engagement, o.Trending, o.Launchpad, o.Callout, o.MarketCap} {
		if !reflect.ValueOf(b).IsNil() {
			return b
		}
	}
	return nil
}

func shares(s string, b []byte) bool {
	if len(s) == 0 || len(b) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&b[0]))
	return p >= lo && p < lo+uintptr(len(b))
}

// The decoded strings share the observation's own copy of the line: they
// neither refer to the caller's line (reused by the caller) nor to the
// decoder's buffers (reused by the next decode), and the strings the engine
// keeps as map keys (routing key, post id) have their own allocation.
func TestDecodedStringsOwnTheirBytes(t *testing.T) {
	body, err := os.ReadFile("testdata/observations.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := SplitNDJSON(body)
	lines = append(lines, []byte(`{"kind":"post","id":"42","created_at":1,"type":"post","text":"esc \"q\" \u00e9 \\ end","author":{"id":"9","handle":"Esc_Aped","name":"N\u00e4me"}}`))
	for i, line := range lines {
		in := bytes.Clone(line)
		o, err := DecodeObservation(in, 1)
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		before, err := stdjson.Marshal(bodyOf(o))
		if err != nil {
			t.Fatal(err)
		}
		for j := range in { // the caller reuses its buffer
			in[j] = 'x'
		}
		for _, other := range lines { // the decoder reuses its own
			if _, err := DecodeObservation(other, 1); err != nil {
				t.Fatal(err)
			}
		}
		after, _ := stdjson.Marshal(bodyOf(o))
		if !bytes.Equal(before, after) {
			t.Fatalf("line %d changed after its input was reused:\n%s\n%s", i, before, after)
		}
		if !bytes.Equal(o.Raw, line) {
			t.Fatalf("line %d: Raw %q", i, o.Raw)
		}
		if shares(o.Key, o.Raw) {
			t.Errorf("line %d: key %q keeps the whole line", i, o.Key)
		}
		if o.Post != nil && shares(o.Post.ID, o.Raw) {
			t.Errorf("line %d: post id %q keeps the whole line", i, o.Post.ID)
		}
	}
	o, _ := DecodeObservation(lines[len(lines)-1], 1)
	if o.Post.Text != "esc \"q\" é \\ end" || o.Post.Author.Name != "Näme" || o.Key != "esc_aped" {
		t.Fatalf("escaped strings: %q %q %q", o.Post.Text, o.Post.Author.Name, o.Key)
	}
	if !shares(o.Post.Type, o.Raw) {
		t.Errorf("post type %q does not share the line: the decode copies again", o.Post.Type)
	}
}
