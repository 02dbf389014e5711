package protocol

import (
	"encoding/json"
	"testing"
)

func TestAppendTypeDataFrame(t *testing.T) {
	for _, c := range []struct {
		typ, data, want string
	}{
		{"trending_tweet", `{"category":"crypto"}`, `{"type":"trending_tweet","data":{"category":"crypto"}}`},
		{"match", `[]`, `{"type":"match","data":[]}`},
		{`we"ird`, `null`, `{"type":"we\"ird","data":null}`},
	} {
		got := AppendTypeDataFrame([]byte("x"), c.typ, []byte(c.data))
		if string(got) != "x"+c.want {
			t.Errorf("%q: %s, want %s", c.typ, got, c.want)
		}
		if !json.Valid(got[1:]) {
			t.Errorf("%q: not JSON: %s", c.typ, got[1:])
		}
	}
}

func TestAppendTweetOnlyFrame(t *testing.T) {
	if got := AppendTweetOnlyFrame(nil, []byte(`{"id":"1"}`)); string(got) != `{"event_type":"tweet","data":{"id":"1"}}` {
		t.Fatalf("frame %s", got)
	}
	if !json.Valid(TweetOnlyGreeting) {
		t.Fatal("greeting is not JSON")
	}
}
