package et

import (
	"encoding/json"
	"testing"
)

func TestCompare(t *testing.T) {
	c := func(f, r, rep, q, b int64) Counts { return Counts{f, r, rep, q, b} }
	for _, tc := range []struct {
		name        string
		prev        State
		known       bool
		cur         Counts
		wantChanged bool
		wantAt      int64
	}{
		{"first observation is the baseline", State{}, false, c(1, 2, 3, 4, 5), false, 100},
		{"first observation of zeros is a baseline too", State{}, false, c(0, 0, 0, 0, 0), false, 100},
		{"unchanged keeps the old time", State{c(1, 2, 3, 4, 5), 50}, true, c(1, 2, 3, 4, 5), false, 50},
		{"a like", State{c(1, 2, 3, 4, 5), 50}, true, c(2, 2, 3, 4, 5), true, 100},
		{"a repost", State{c(1, 2, 3, 4, 5), 50}, true, c(1, 3, 3, 4, 5), true, 100},
		{"a reply", State{c(1, 2, 3, 4, 5), 50}, true, c(1, 2, 4, 4, 5), true, 100},
		{"a quote", State{c(1, 2, 3, 4, 5), 50}, true, c(1, 2, 3, 5, 5), true, 100},
		{"a bookmark", State{c(1, 2, 3, 4, 5), 50}, true, c(1, 2, 3, 4, 6), true, 100},
		{"a count going down is a change too", State{c(9, 2, 3, 4, 5), 50}, true, c(8, 2, 3, 4, 5), true, 100},
		{"known zeros then a first like", State{c(0, 0, 0, 0, 0), 50}, true, c(1, 0, 0, 0, 0), true, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, changed := Compare(tc.prev, tc.known, tc.cur, 100)
			if changed != tc.wantChanged || next.UpdatedAt != tc.wantAt || next.Counts != tc.cur {
				t.Errorf("Compare = %+v, %v; want counts %+v at %d, changed %v", next, changed, tc.cur, tc.wantAt, tc.wantChanged)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	u := &Update{TweetID: "123", Old: Counts{1, 2, 3, 4, 5}, New: Counts{2, 2, 3, 4, 5}}
	frame, body, err := Encode(u)
	if err != nil {
		t.Fatal(err)
	}
	wantFrame := `{"type":"engagement_update","data":{"tweet_id":"123","old":{"favorite_count":1,"retweet_count":2,"reply_count":3,"quote_count":4,"bookmark_count":5},"new":{"favorite_count":2,"retweet_count":2,"reply_count":3,"quote_count":4,"bookmark_count":5}}}`
	if string(frame) != wantFrame {
		t.Errorf("frame\n%s\nwant\n%s", frame, wantFrame)
	}
	wantBody := `{"type":"engagement_update","tweet_id":"123","old":{"favorite_count":1,"retweet_count":2,"reply_count":3,"quote_count":4,"bookmark_count":5},"new":{"favorite_count":2,"retweet_count":2,"reply_count":3,"quote_count":4,"bookmark_count":5}}`
	if string(body) != wantBody {
		t.Errorf("body\n%s\nwant\n%s", body, wantBody)
	}
	if !json.Valid(frame) || !json.Valid(body) {
		t.Error("invalid JSON")
	}
}
