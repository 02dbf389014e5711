package et

import (
	"testing"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// FuzzTweetIDs: what the tweet_ids reader accepts is a non-empty list of
// post ids.
func FuzzTweetIDs(f *testing.F) {
	for _, s := range []string{`{"tweet_ids":["123","456"]}`, `{"tweet_ids":[1,"x",""]}`, `{"tweet_ids":null}`, `{"tweet_ids":[]}`,
		`{"tweet_ids":["123456789012345678901"]}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		ids, err := tweetIDs(m)
		if err != nil {
			return
		}
		if len(ids) == 0 {
			t.Fatal("an empty tweet_ids accepted")
		}
		for _, id := range ids {
			if !protocol.ValidNumericID(id) {
				t.Fatalf("tweet id %q accepted", id)
			}
		}
	})
}
