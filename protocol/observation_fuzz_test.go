package protocol

import (
	"bytes"
	stdjson "encoding/json"
	"testing"
)

func FuzzDecodeObservation(f *testing.F) {
	f.Add([]byte(`{"kind":"user","id":"1","handle":"a"}`))
	f.Add([]byte(`{"kind":"post","id":"1","created_at":1,"type":"post","author":{"id":"1","handle":"a"},"media":[{"type":"photo","url":"u"}]}`))
	f.Add([]byte(`{"kind":"following","handle":"a","users":[{"id":"2","handle":"B"}]}`))
	f.Add([]byte(`{"kind":"market_cap","mint":"m","market_cap":1e308}`))
	f.Add([]byte(`{"kind":"post","id":"1","created_at":1,"type":"post","text":"a\"\u00e9","author":{"id":"1","handle":"A"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		in := bytes.Clone(line)
		o, err := DecodeObservation(in, 1)
		if err != nil {
			return
		}
		// The observation owns its bytes: the caller may reuse its line.
		before, _ := stdjson.Marshal(bodyOf(o))
		for i := range in {
			in[i] = ' '
		}
		if after, _ := stdjson.Marshal(bodyOf(o)); !bytes.Equal(before, after) || !bytes.Equal(o.Raw, line) {
			t.Fatalf("observation changed with its input:\n%s\n%s", before, after)
		}
		if o.Key == "" {
			t.Fatalf("accepted %s observation without a routing key", o.Kind)
		}
		if o.HandleBound() && !ValidHandle(o.Key) {
			t.Fatalf("handle-bound key %q is not a handle", o.Key)
		}
	})
}

func FuzzSplitBodies(f *testing.F) {
	f.Add([]byte("{}\n{}\n"))
	f.Add([]byte(`[{"kind":"user"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, l := range SplitNDJSON(body) {
			if len(l) == 0 {
				t.Fatal("empty line returned")
			}
		}
		_, _ = SplitArray(body)
	})
}
