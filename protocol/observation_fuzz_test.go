package protocol

import "testing"

func FuzzDecodeObservation(f *testing.F) {
	f.Add([]byte(`{"kind":"user","id":"1","handle":"a"}`))
	f.Add([]byte(`{"kind":"post","id":"1","created_at":1,"type":"post","author":{"id":"1","handle":"a"},"media":[{"type":"photo","url":"u"}]}`))
	f.Add([]byte(`{"kind":"following","handle":"a","users":[{"id":"2","handle":"B"}]}`))
	f.Add([]byte(`{"kind":"market_cap","mint":"m","market_cap":1e308}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		o, err := DecodeObservation(line, 1)
		if err != nil {
			return
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
