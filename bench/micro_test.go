package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/sim"
)

// postLine is the post example of CONTRACT.md section 3
// (/work/shared/examples/observations.ndjson): a launch post with a cashtag,
// a contract address, one photo and a full author object.
const postLine = `{"kind":"post","id":"1860000000000000001","created_at":1763712000123,"type":"post","text":"new launch $WIF2 CA: 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU","cashtags":["WIF2"],"media":[{"type":"photo","url":"https://pbs.example.com/media/a.jpg"}],"mentions":[],"author":{"id":"744628103955443712","handle":"solwhale","name":"Sol Whale","avatar":"https://pbs.example.com/solwhale.jpg","description":"on-chain since 2017","verification":{"is_verified":true,"type":"blue"},"affiliation":null,"stats":{"followers":48210,"following":311}},"in_reply_to":null,"quoted_tweet":null,"possibly_sensitive":false,"conversation_id":"1860000000000000001","entities":{"hashtags":[],"urls":[],"symbols":[{"text":"WIF2","indices":[11,16]}]},"metrics":{"likes":0,"retweets":0,"replies":0,"quotes":0,"views":"0"}}`

// BenchmarkDecodeObservation decodes and validates one ingest line, as the
// ingest handler does for every NDJSON line.
func BenchmarkDecodeObservation(b *testing.B) {
	now := time.Now().UnixMilli()
	b.Run("post", func(b *testing.B) {
		line := []byte(postLine)
		if _, err := protocol.DecodeObservation(line, now); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if _, err := protocol.DecodeObservation(line, now); err != nil {
				b.Fatal(err)
			}
		}
	})
	// sim-mix cycles through a steady-state stream of the simulator (after
	// its start-up snapshots), so every kind appears in its usual share.
	b.Run("sim-mix", func(b *testing.B) {
		s := sim.New(sim.Config{Seed: 1, Users: 300, Rate: -1})
		s.Generate(3 * s.Users())
		lines := s.Generate(4096)
		var size int64
		for _, l := range lines {
			if _, err := protocol.DecodeObservation(l, now); err != nil {
				b.Fatalf("sim line rejected: %v", err)
			}
			size += int64(len(l))
		}
		b.ReportAllocs()
		b.SetBytes(size / int64(len(lines)))
		i := 0
		for b.Loop() {
			if _, err := protocol.DecodeObservation(lines[i], now); err != nil {
				b.Fatal(err)
			}
			if i++; i == len(lines) {
				i = 0
			}
		}
	})
}

// BenchmarkSplitNDJSON splits one default-sized ingest body (500 lines).
func BenchmarkSplitNDJSON(b *testing.B) {
	s := sim.New(sim.Config{Seed: 1, Users: 300, Rate: -1})
	s.Generate(3 * s.Users())
	var body []byte
	for _, l := range s.Generate(500) {
		body = append(append(body, l...), '\n')
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if n := len(protocol.SplitNDJSON(body)); n != 500 {
			b.Fatalf("%d lines", n)
		}
	}
}

// BenchmarkAuthenticate checks a dt key against a warm registry (every key
// and subscription in memory, as after Load) over the embedded store.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	st, err := embedded.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	r := account.NewRegistry(st, time.Now)
	if err := r.Load(ctx); err != nil {
		b.Fatal(err)
	}
	// A few hundred accounts, so the key map is not trivially small.
	var keys []string
	for i := range 300 {
		p := protocol.ProductB2B
		plan := "enterprise"
		if i%2 == 1 {
			p, plan = protocol.ProductTweetAlerts, "ultra"
		}
		iss, err := r.Issue(ctx, "", p, account.Changes{Plan: &plan})
		if err != nil {
			b.Fatal(err)
		}
		if p == protocol.ProductB2B {
			keys = append(keys, iss.Key)
		}
	}
	// Reload into a fresh registry: the state a restarted server starts from.
	r = account.NewRegistry(st, time.Now)
	if err := r.Load(ctx); err != nil {
		b.Fatal(err)
	}
	key := keys[len(keys)/2]
	if _, reason := r.Authenticate(key, protocol.ProductB2B); reason != account.OK {
		b.Fatalf("issued key refused: %v", reason)
	}
	b.Run("ok", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, reason := r.Authenticate(key, protocol.ProductB2B); reason != account.OK {
				b.Fatal(reason)
			}
		}
	})
	b.Run("unknown", func(b *testing.B) {
		unknown := account.NewKey(protocol.ProductB2B)
		b.ReportAllocs()
		for b.Loop() {
			if _, reason := r.Authenticate(unknown, protocol.ProductB2B); reason != account.Unknown {
				b.Fatal(reason)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				if _, reason := r.Authenticate(keys[i%len(keys)], protocol.ProductB2B); reason != account.OK {
					b.Error(reason)
					return
				}
				i++
			}
		})
	})
}

// BenchmarkAppendError renders failure envelopes into a reused buffer, as the
// edge does for every refused request (429s under load, 401s from scanners).
func BenchmarkAppendError(b *testing.B) {
	cases := []*protocol.APIError{
		protocol.RateLimited(1),
		protocol.NewError(401, protocol.CodeKeyUnknown, "API key unknown, revoked or regenerated"),
		protocol.BadRequest(`field "handle" must be 1-15 characters of A-Z, a-z, 0-9 and _`).WithHint("see spec 2 \"Targets\""),
	}
	for _, e := range cases {
		b.Run(fmt.Sprintf("%d-%s", e.Status, e.Code), func(b *testing.B) {
			buf := protocol.AppendError(nil, e)
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				buf = protocol.AppendError(buf[:0], e)
			}
		})
	}
}
