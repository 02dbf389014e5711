package xapi

import (
	"testing"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
)

// FuzzDecodePost: any stream line either fails cleanly or gives a line that
// ingest accepts as a post.
func FuzzDecodePost(f *testing.F) {
	fake := xapifake.New(xapifake.Options{})
	seed(fake)
	f.Add(fake.Line(original()))
	f.Add(fake.Line(parent))
	f.Add([]byte("\r\n"))
	f.Add([]byte(`{"errors":[{"title":"operational-disconnect"}]}`))
	f.Add([]byte(`{"data":{"id":"1","created_at":"2026-11-21T08:00:00Z","author_id":"9","referenced_tweets":[{"type":"retweeted","id":"2"}]},` +
		`"includes":{"users":[{"id":"9","username":"a"}],"tweets":[{"id":"2","author_id":"9","text":"x","entities":{"cashtags":[{"start":0,"end":2,"tag":"X"}]}}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		obs, _, err := DecodePost(line)
		if err != nil {
			return
		}
		o, err := protocol.DecodeObservation(obs, 1)
		if err != nil {
			t.Fatalf("ingest rejects %s: %v", obs, err)
		}
		if o.Kind != protocol.KindPost {
			t.Fatalf("kind %s", o.Kind)
		}
	})
}
