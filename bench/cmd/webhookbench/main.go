// Command webhookbench measures Tweet Alerts webhook delivery end to end:
// it builds and starts the real alertd binary (webhooks allowed to reach
// loopback), registers webhooks pointing at a local receiver that verifies
// every signature, ingests posts of tracked handles through the ingest API,
// and reports deliveries per second and ingest-to-receipt latency (from the
// moment the post's ingest request was sent to the moment the receiver read
// the delivery). It writes a markdown report; numbers are for reading,
// never asserted.
//
//	go run ./bench/cmd/webhookbench -out bench/results
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/alertd/alertd/bench/internal/alertdproc"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type options struct {
	out, bin, databaseURL, note string
	keep                        bool
	handles                     int
	webhooks                    []int
	posts, batch, senders       int
	rate                        int
	latencyFor                  time.Duration
	latencyHooks                int
	timeout                     time.Duration
	fairHooks, fairRounds       int
	fairRate                    int
	fairFor                     time.Duration
	profile                     string
}

// hooksPerAccount is the ultra plan's webhook limit: scenarios with more
// webhooks spread them over several accounts tracking the same handles.
const hooksPerAccount = 50

func parseFlags() (*options, error) {
	o := &options{}
	var hooks string
	flag.StringVar(&o.out, "out", "bench/results", "directory for the report (webhooks-<date>.md and webhooks-latest.md); empty: stdout only")
	flag.StringVar(&o.bin, "bin", "", "use this alertd binary instead of building ./cmd/alertd")
	flag.StringVar(&o.databaseURL, "database-url", "", "postgres:// URL for alertd (empty: embedded store in a temp dir)")
	flag.StringVar(&o.note, "note", "", "free text for the report's settings")
	flag.BoolVar(&o.keep, "keep", false, "keep the temp dir (binary, data, server.log)")
	flag.IntVar(&o.handles, "handles", 20, "tracked handles the posts come from (round robin)")
	flag.StringVar(&hooks, "webhooks", "1,10,50,100", "throughput scenarios: webhooks registered (each gets every post; 50 per account)")
	flag.IntVar(&o.posts, "posts", 2000, "posts per throughput scenario")
	flag.IntVar(&o.batch, "batch", 100, "posts per ingest request in the throughput scenarios")
	flag.IntVar(&o.senders, "senders", 2, "concurrent ingest requests in the throughput scenarios")
	flag.IntVar(&o.rate, "rate", 100, "posts per second of the latency scenario (one post per request)")
	flag.DurationVar(&o.latencyFor, "latency-duration", 10*time.Second, "length of the latency scenario")
	flag.IntVar(&o.latencyHooks, "latency-webhooks", 5, "webhooks of the latency scenario")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "longest wait for a scenario's deliveries")
	flag.IntVar(&o.fairHooks, "fairness-webhooks", 100, "webhooks of the fairness scenario; 0 skips it")
	flag.IntVar(&o.fairRounds, "fairness-rounds", 4, "fairness rounds: each runs without and with one blackholed webhook, alternating which goes first (A B, B A, ...)")
	flag.IntVar(&o.fairRate, "fairness-rate", 20, "posts per second of the fairness scenario (one post per request)")
	flag.DurationVar(&o.fairFor, "fairness-duration", 8*time.Second, "length of each fairness run")
	flag.StringVar(&o.profile, "profile", "", "write a CPU profile of alertd (30 s, from the start of the largest throughput scenario) to this file")
	flag.Parse()
	for _, f := range strings.Split(hooks, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1000 {
			return nil, fmt.Errorf("-webhooks: %q is not 1 to 1000", f)
		}
		o.webhooks = append(o.webhooks, n)
	}
	if o.handles < 1 || o.handles > 1000 || o.posts < 1 || o.batch < 1 || o.senders < 1 || o.rate < 1 || o.latencyHooks < 1 || o.latencyHooks > 1000 ||
		o.fairHooks < 0 || o.fairHooks == 1 || o.fairHooks > 1000 || o.fairRounds < 1 || o.fairRate < 1 {
		return nil, fmt.Errorf("flag out of range")
	}
	return o, nil
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "webhookbench: "+format+"\n", args...) }

func main() {
	o, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhookbench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		logf("%v", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o *options) error {
	tmp, err := os.MkdirTemp("", "webhookbench-")
	if err != nil {
		return err
	}
	if o.keep {
		logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := o.bin
	if bin == "" {
		logf("building ./cmd/alertd")
		if bin, err = alertdproc.BuildBinary(ctx, tmp); err != nil {
			return err
		}
	}
	s, err := startServer(bin, tmp, o.databaseURL, time.Minute, o.profile != "")
	if err != nil {
		return err
	}
	defer s.Stop()
	rcv, err := newReceiver()
	if err != nil {
		return err
	}
	defer rcv.close()
	hole, err := newBlackhole()
	if err != nil {
		return err
	}
	defer hole.close()
	handles, err := makeUsers(s, o.handles)
	if err != nil {
		return err
	}
	rep := &report{opts: o, started: time.Now().UTC()}
	largest := slices.Max(o.webhooks)
	for _, w := range o.webhooks {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		logf("throughput: %d webhooks × %d posts", w, o.posts)
		var prof chan error
		if o.profile != "" && w == largest {
			prof = make(chan error, 1)
			go func() { prof <- s.cpuProfile(o.profile, 30*time.Second) }()
		}
		res, err := scenario(ctx, s, rcv, nil, handles, w, o, modeThroughput)
		if err != nil {
			return err
		}
		if prof != nil {
			if err := <-prof; err != nil {
				logf("profile: %v", err)
			} else {
				logf("wrote %s", o.profile)
			}
		}
		rep.results = append(rep.results, res)
	}
	logf("latency: %d posts/s for %v, %d webhooks", o.rate, o.latencyFor, o.latencyHooks)
	res, err := scenario(ctx, s, rcv, nil, handles, o.latencyHooks, o, modeLatency)
	if err != nil {
		return err
	}
	rep.results = append(rep.results, res)
	if o.fairHooks > 0 {
		for round := range o.fairRounds {
			order := []*blackhole{nil, hole}
			if round%2 == 1 {
				order = []*blackhole{hole, nil} // A B, B A, ...: neither always runs first
			}
			for _, bh := range order {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				logf("fairness round %d: %d webhooks at %d posts/s for %v, blackholed: %v", round+1, o.fairHooks, o.fairRate, o.fairFor, bh != nil)
				res, err := scenario(ctx, s, rcv, bh, handles, o.fairHooks, o, modeFairness)
				if err != nil {
					return err
				}
				res.round = round + 1
				rep.results = append(rep.results, res)
			}
		}
		logf("blackhole: %d connections accepted, none answered", hole.accepted())
	}
	return rep.write(o.out)
}

// makeUsers ingests n users and returns their handles once the directory
// has them all (an add of every handle succeeds).
func makeUsers(s *server, n int) ([]string, error) {
	stamp := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	var lines []string
	var handles []string
	for i := range n {
		h := fmt.Sprintf("wb_%s_%d", stamp, i)
		handles = append(handles, h)
		u := map[string]any{"kind": "user", "id": fmt.Sprintf("88%d%05d", time.Now().Unix()%1e6, i), "handle": h,
			"name": "Bench " + h, "bio": "", "avatar": "https://pbs.example.com/" + h + ".jpg", "banner_url": nil,
			"location": nil, "website": nil, "followers": 1000 + i, "following": 10, "verified": false,
			"verification_type": nil, "pinned_post": []string{}, "categories": []string{}, "suspended": false}
		b, _ := json.Marshal(u)
		lines = append(lines, string(b))
	}
	if err := s.call("POST", "/ingest/v1/observations", s.Token, []byte(strings.Join(lines, "\n")), 200, nil); err != nil {
		return nil, err
	}
	var probe struct{ Key string }
	if err := s.call("POST", "/admin/v1/keys", s.Token, map[string]any{"product": "xg", "plan": "ultra"}, 201, &probe); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, h := range handles {
		for {
			var added struct{ Added []string }
			if err := s.call("POST", "/v1/accounts", probe.Key, map[string]any{"handles": []string{h}}, 201, &added); err != nil {
				return nil, err
			}
			if len(added.Added) == 1 {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("user %s never reached the directory", h)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return handles, nil
}

type mode int

const (
	modeThroughput mode = iota // posts in batches, as fast as answered
	modeLatency                // paced posts, unloaded latency
	modeFairness               // paced posts; the run with a blackhole has one webhook that never answers
)

// result is one scenario's figures.
type result struct {
	mode                    mode
	round                   int
	blackholed              bool
	webhooks, posts         int
	deliveries, expected    int
	elapsed                 time.Duration
	perSecond               float64
	p50, p90, p99, max      time.Duration
	badSig, dups, ingestErr int
	rate                    int
	serverCores, benchCores float64       // CPU time over wall time: alertd, and this process (receiver and senders)
	serverPerDelivery       time.Duration // alertd CPU time over deliveries made (ingest included)
}

// scenario registers w webhooks (the last one at the blackhole when bh is
// set) for fresh ultra accounts tracking handles, 50 per account, sends
// posts, waits for every delivery to the answering ones and measures.
func scenario(ctx context.Context, s *server, rcv *receiver, bh *blackhole, handles []string, w int, o *options, m mode) (*result, error) {
	var keys []string
	var ids []int64
	owner := map[int64]string{}
	defer func() {
		for _, id := range ids {
			_ = s.call("DELETE", "/v1/webhooks/"+strconv.FormatInt(id, 10), owner[id], nil, 200, nil)
		}
	}()
	for len(ids) < w {
		if len(ids)%hooksPerAccount == 0 {
			var acct struct{ Key string }
			if err := s.call("POST", "/admin/v1/keys", s.Token, map[string]any{"product": "xg", "plan": "ultra"}, 201, &acct); err != nil {
				return nil, err
			}
			for i := 0; i < len(handles); i += 25 {
				if err := s.call("POST", "/v1/accounts", acct.Key, map[string]any{"handles": handles[i:min(i+25, len(handles))]}, 201, nil); err != nil {
					return nil, err
				}
			}
			keys = append(keys, acct.Key)
		}
		key := keys[len(keys)-1]
		url := rcv.url
		if bh != nil && len(ids) == w-1 {
			url = bh.url
		}
		var hook struct {
			ID     int64
			Secret string
		}
		if err := s.call("POST", "/v1/webhooks", key, map[string]any{"url": url}, 201, &hook); err != nil {
			return nil, err
		}
		rcv.addSecret(hook.ID, hook.Secret)
		ids = append(ids, hook.ID)
		owner[hook.ID] = key
	}
	answering := w
	if bh != nil {
		answering--
	}
	rcv.reset()
	sent := &sync.Map{} // tweet id -> time.Time the request carrying it was sent
	var ingestErr atomic.Int64
	res := &result{mode: m, webhooks: w, rate: o.rate, blackholed: bh != nil}
	server0, bench0 := s.Sample(), alertdproc.SelfCPU()
	start := time.Now()
	switch m {
	case modeLatency:
		res.posts = sendPaced(ctx, s, handles, o.rate, o.latencyFor, sent, &ingestErr)
	case modeFairness:
		res.rate = o.fairRate
		res.posts = sendPaced(ctx, s, handles, o.fairRate, o.fairFor, sent, &ingestErr)
	default:
		res.posts = o.posts
		sendBatches(s, handles, o.posts, o.batch, o.senders, sent, &ingestErr)
	}
	res.expected = res.posts * answering
	arrived := rcv.wait(res.expected, time.Now().Add(o.timeout))
	server1, bench1 := s.Sample(), alertdproc.SelfCPU()
	res.deliveries = len(arrived)
	res.badSig, res.dups = rcv.problems()
	res.ingestErr = int(ingestErr.Load())
	var last time.Time
	lat := make([]time.Duration, 0, len(arrived))
	for _, a := range arrived {
		if t, ok := sent.Load(a.tweetID); ok {
			lat = append(lat, a.at.Sub(t.(time.Time)))
		}
		if a.at.After(last) {
			last = a.at
		}
	}
	res.elapsed = last.Sub(start)
	if res.elapsed > 0 {
		res.perSecond = float64(res.deliveries) / res.elapsed.Seconds()
	}
	if wall := server1.At.Sub(server0.At); wall > 0 {
		res.serverCores = float64(server1.CPU-server0.CPU) / float64(wall)
		res.benchCores = float64(bench1-bench0) / float64(wall)
	}
	if res.deliveries > 0 {
		res.serverPerDelivery = (server1.CPU - server0.CPU) / time.Duration(res.deliveries)
	}
	res.p50, res.p90, res.p99, res.max = percentiles(lat)
	logf("  %d/%d deliveries in %v: %.0f/s, p50 %v p99 %v; cores: alertd %.2f, bench %.2f; alertd CPU %v per delivery", res.deliveries, res.expected,
		res.elapsed.Round(time.Millisecond), res.perSecond, res.p50, res.p99, res.serverCores, res.benchCores, res.serverPerDelivery)
	return res, nil
}

var postSeq atomic.Int64

// postLine is one `post` observation of handle, created now.
func postLine(handle string) (string, string) {
	id := fmt.Sprintf("21%011d%06d", time.Now().UnixMilli()%1e11, postSeq.Add(1)%1e6)
	p := map[string]any{
		"kind": "post", "id": id, "created_at": time.Now().UnixMilli(), "type": "post", "text": "gm $SOL bench " + id,
		"cashtags": []string{"SOL"}, "media": []any{map[string]any{"type": "photo", "url": "https://pbs.example.com/m/" + id + ".jpg"}},
		"mentions": []string{},
		"author": map[string]any{"id": "99" + id[10:], "handle": handle, "name": "Bench", "avatar": "https://pbs.example.com/a.jpg",
			"description": "", "verification": map[string]any{"is_verified": false, "type": nil}, "affiliation": nil,
			"stats": map[string]any{"followers": 1000, "following": 10}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": map[string]any{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  map[string]any{"likes": nil, "retweets": nil, "replies": nil, "quotes": nil, "views": nil},
	}
	b, _ := json.Marshal(p)
	return id, string(b)
}

// sendBatches ingests n posts in NDJSON bodies of batch lines from
// `senders` concurrent clients, as fast as the server answers.
func sendBatches(s *server, handles []string, n, batch, senders int, sent *sync.Map, errs *atomic.Int64) {
	bodies := make(chan []string, senders)
	go func() {
		defer close(bodies)
		var lines, ids []string
		for i := range n {
			id, l := postLine(handles[i%len(handles)])
			lines, ids = append(lines, l), append(ids, id)
			if len(lines) == batch || i == n-1 {
				bodies <- append([]string{strings.Join(lines, "\n")}, ids...)
				lines, ids = nil, nil
			}
		}
	}()
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range bodies {
				now := time.Now()
				for _, id := range b[1:] {
					sent.Store(id, now)
				}
				if err := s.call("POST", "/ingest/v1/observations", s.Token, []byte(b[0]), 200, nil); err != nil {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
}

// sendPaced ingests one post per request at rate posts per second.
func sendPaced(ctx context.Context, s *server, handles []string, rate int, d time.Duration, sent *sync.Map, errs *atomic.Int64) int {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(d)
	n := 0
	for time.Now().Before(end) && ctx.Err() == nil {
		<-tick.C
		id, line := postLine(handles[n%len(handles)])
		sent.Store(id, time.Now())
		if err := s.call("POST", "/ingest/v1/observations", s.Token, []byte(line), 200, nil); err != nil {
			errs.Add(1)
		}
		n++
	}
	return n
}
