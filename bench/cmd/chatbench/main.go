// Command chatbench measures the chat-messenger bot end to end, in process:
// an engine whose bot talks to a fake Bot API server (telegramfake), with
// -chats linked private chats, each tracking -track of -handles handles,
// and posts of those handles ingested through the ingest API at -rate per
// second. It reports, per scenario, the time from a post's ingest request to
// the Bot API's sendMessage that carries it (p50, p90, p99, max), the
// messages per second the bot sent, and what the Bot API's limits do to
// them (queue depth, digests, 429s). Numbers are for reading, never
// asserted.
//
//	go run ./bench/cmd/chatbench -out bench/results
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/chat"
	"github.com/alertd/alertd/edge/telegram/telegramfake"
	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/persistence/postgres"
	"github.com/alertd/alertd/protocol"
)

type options struct {
	out, databaseURL, note string
	chats, handles, track  int
	rate                   int
	duration, drain        time.Duration
	scenarios              []string
}

func main() {
	o := &options{}
	var scen string
	flag.StringVar(&o.out, "out", "bench/results", "directory for chat-<date>.md and chat-latest.md; empty: stdout only")
	flag.StringVar(&o.databaseURL, "database-url", "", "postgres:// URL (empty: embedded store in a temp dir); each scenario needs an empty database")
	flag.StringVar(&o.note, "note", "", "free text for the report")
	flag.IntVar(&o.chats, "chats", 10000, "linked private chats (one account each)")
	flag.IntVar(&o.handles, "handles", 1000, "handles the accounts track")
	flag.IntVar(&o.track, "track", 10, "handles each account tracks (random)")
	flag.IntVar(&o.rate, "rate", 50, "posts per second")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long posts are ingested")
	flag.DurationVar(&o.drain, "drain", 30*time.Second, "longest wait after the last post for the queues to empty")
	flag.StringVar(&scen, "scenarios", "limits,unlimited", "limits: the Bot API's published limits; unlimited: no pacing (a local Bot API server)")
	flag.Parse()
	o.scenarios = strings.Split(scen, ",")
	var results []result
	for _, s := range o.scenarios {
		r, err := run(o, strings.TrimSpace(s))
		if err != nil {
			fmt.Fprintln(os.Stderr, "chatbench:", err)
			os.Exit(1)
		}
		results = append(results, r)
	}
	rep := report(o, results)
	fmt.Print(rep)
	if o.out != "" {
		_ = os.MkdirAll(o.out, 0o755)
		name := filepath.Join(o.out, "chat-"+time.Now().UTC().Format("2006-01-02")+".md")
		for _, p := range []string{name, filepath.Join(o.out, "chat-latest.md")} {
			if err := os.WriteFile(p, []byte(rep), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "chatbench:", err)
				os.Exit(1)
			}
		}
	}
}

// result is one scenario's figures.
type result struct {
	name                 string
	limits               chat.Limits
	seed                 time.Duration
	posts                int
	demand               int // alerts the posts should make (watchers per post, summed)
	sent                 int64
	alertsSent           int64 // alerts delivered one per message
	window               time.Duration
	lat                  []time.Duration
	stats                chat.Stats
	drained              bool
	serverCPU, wall      time.Duration
	maxQueue             int64
	sentDuringPosts      int64
	firstSend, lastSend  time.Time
	postsStart, postsEnd time.Time
}

func limitsOf(name string) (chat.Limits, error) {
	l := chat.DefaultLimits()
	switch name {
	case "limits":
	case "unlimited":
		l.PerSecond, l.PrivateEvery, l.GroupEvery = 1e6, 0, 0
		l.DigestAt = 1 << 30
	default:
		return l, fmt.Errorf("unknown scenario %q", name)
	}
	return l, nil
}

func run(o *options, name string) (result, error) {
	r := result{name: name}
	lim, err := limitsOf(name)
	if err != nil {
		return r, err
	}
	r.limits = lim
	dir, err := os.MkdirTemp("", "chatbench-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// Seed the store: accounts with a Tweet Alerts subscription, their
	// tracked handles and their linked chat.
	start := time.Now()
	watchers, err := seed(ctx, o, dir)
	if err != nil {
		return r, fmt.Errorf("seed: %w", err)
	}
	r.seed = time.Since(start)

	fake := telegramfake.New()
	defer fake.Close()
	fake.NoRecord = true
	var (
		mu       sync.Mutex
		sentAt   = map[string]time.Time{} // post id -> ingest request sent
		lat      []time.Duration
		sent     atomic.Int64
		alerts   atomic.Int64
		first    atomic.Int64
		last     atomic.Int64
		inPosts  atomic.Bool
		duringPs atomic.Int64
	)
	fake.OnSend = func(c telegramfake.Call) {
		now := time.Now()
		sent.Add(1)
		if inPosts.Load() {
			duringPs.Add(1)
		}
		first.CompareAndSwap(0, now.UnixNano())
		last.Store(now.UnixNano())
		txt := telegramfake.Text(c)
		if strings.Contains(txt, "alerts while this chat was behind") {
			return
		}
		i := strings.LastIndex(txt, "/status/")
		if i < 0 {
			return
		}
		id := txt[i+len("/status/"):]
		if j := strings.IndexAny(id, "\"<"); j >= 0 {
			id = id[:j]
		}
		alerts.Add(1)
		mu.Lock()
		if t, ok := sentAt[id]; ok {
			lat = append(lat, now.Sub(t))
		}
		mu.Unlock()
	}

	cfg := engine.DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.DatabaseURL, cfg.AdminToken = "127.0.0.1:0", dir, o.databaseURL, "adm_chatbench"
	cfg.TelegramBotToken = telegramfake.Token
	cfg.Telegram.APIURL = fake.URL()
	cfg.Telegram.Limits = lim
	cfg.Timings.RateWindow = time.Microsecond
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	e, err := engine.Start(ctx, &cfg, log)
	if err != nil {
		return r, err
	}
	go func() { _ = e.Serve() }()
	defer e.Close()
	base := "http://" + e.Addr().String()

	// Posts at -rate, round robin over the handles, one per request.
	cpu0 := cpuTime()
	r.postsStart = time.Now()
	inPosts.Store(true)
	tick := time.NewTicker(time.Second / time.Duration(o.rate))
	end := time.Now().Add(o.duration)
	n := 0
	var maxQ int64
	for time.Now().Before(end) {
		<-tick.C
		h := n % o.handles
		id := fmt.Sprintf("19%011d%05d", time.Now().UnixMilli()%1e11, n%100000)
		mu.Lock()
		sentAt[id] = time.Now()
		mu.Unlock()
		if err := ingest(base, cfg.AdminToken, post(id, handle(h))); err != nil {
			return r, err
		}
		r.demand += watchers[h]
		n++
		if n%o.rate == 0 {
			if st, ok := e.ChatStats(); ok {
				maxQ = max(maxQ, st.Queued)
			}
		}
	}
	tick.Stop()
	inPosts.Store(false)
	r.postsEnd = time.Now()
	r.posts = n
	// Drain: until every alert is out or -drain passed.
	deadline := time.Now().Add(o.drain)
	for time.Now().Before(deadline) {
		st, _ := e.ChatStats()
		maxQ = max(maxQ, st.Queued)
		if st.Queued == 0 && alerts.Load() >= int64(r.demand) {
			r.drained = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.serverCPU = cpuTime() - cpu0
	r.wall = time.Since(r.postsStart)
	r.stats, _ = e.ChatStats()
	r.maxQueue = maxQ
	r.sent, r.alertsSent, r.sentDuringPosts = sent.Load(), alerts.Load(), duringPs.Load()
	r.firstSend, r.lastSend = time.Unix(0, first.Load()), time.Unix(0, last.Load())
	mu.Lock()
	r.lat = slices.Clone(lat)
	mu.Unlock()
	slices.Sort(r.lat)
	return r, nil
}

func handle(i int) string { return fmt.Sprintf("chb_%04d", i) }

// seed writes the accounts, subscriptions, tracked handles and chats, and
// returns how many accounts watch each handle.
func seed(ctx context.Context, o *options, dir string) ([]int, error) {
	var st persistence.Store
	var err error
	if o.databaseURL != "" {
		st, err = postgres.Open(ctx, o.databaseURL)
	} else {
		st, err = embedded.Open(ctx, dir)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	watchers := make([]int, o.handles)
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now().UTC().Truncate(time.Millisecond)
	type job struct {
		acct    string
		chat    int64
		handles []string
	}
	jobs := make(chan job)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if _, err := st.CreateAccount(ctx, j.acct, now); err != nil {
					errs <- err
					return
				}
				if err := st.PutSubscription(ctx, persistence.Subscription{AccountID: j.acct, Product: protocol.ProductTweetAlerts,
					Plan: "ultra", CreatedAt: now, UpdatedAt: now}); err != nil {
					errs <- err
					return
				}
				var rows []persistence.TrackedHandle
				for i, h := range j.handles {
					rows = append(rows, persistence.TrackedHandle{AccountID: j.acct, Handle: h, AddedAt: now.Add(time.Duration(i) * time.Millisecond)})
				}
				if err := st.TrackHandles(ctx, rows); err != nil {
					errs <- err
					return
				}
				if err := st.PutChat(ctx, persistence.Chat{ChatID: j.chat, AccountID: j.acct, Kind: "private", LinkedAt: now}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range o.chats {
		picked := map[int]bool{}
		var hs []string
		for len(hs) < min(o.track, o.handles) {
			h := rng.IntN(o.handles)
			if !picked[h] {
				picked[h] = true
				watchers[h]++
				hs = append(hs, handle(h))
			}
		}
		select {
		case jobs <- job{acct: fmt.Sprintf("acc_chb%08d", i), chat: int64(1_000_000_000 + i), handles: hs}:
		case err := <-errs:
			close(jobs)
			wg.Wait()
			return nil, err
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	return watchers, nil
}

func post(id, h string) map[string]any {
	return map[string]any{"kind": "post", "id": id, "created_at": time.Now().UnixMilli(), "type": "post",
		"text": "chatbench post " + id + " $SOL to the moon", "cashtags": []string{}, "media": []any{}, "mentions": []string{},
		"author": map[string]any{"id": "7" + id[2:], "handle": h, "name": "Bench " + h, "avatar": "https://pbs.example.com/a.jpg",
			"description": "", "verification": map[string]any{"is_verified": false, "type": nil}, "affiliation": nil,
			"stats": map[string]any{"followers": 10, "following": 1}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": map[string]any{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  map[string]any{"likes": 0, "retweets": 0, "replies": 0, "quotes": 0, "views": "0"}}
}

var client = &http.Client{Timeout: 10 * time.Second}

func ingest(base, token string, obs map[string]any) error {
	b, _ := json.Marshal(obs)
	req, _ := http.NewRequest("POST", base+"/ingest/v1/observations", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"accepted":1`)) {
		return fmt.Errorf("ingest: %d %s", resp.StatusCode, body)
	}
	return nil
}

func pct(l []time.Duration, p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[min(len(l)-1, int(float64(len(l))*p))]
}

func report(o *options, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Chat bot benchmark (issue 11), %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	b.WriteString("Generated by `go run ./bench/cmd/chatbench`. In process: the engine, a fake Bot API server (`edge/telegram/telegramfake`, answering at once) and the load generator share the machine. Latency is from the moment the bench sends a post's ingest request to the moment the fake Bot API receives the `sendMessage` that carries the post.\n\n")
	fmt.Fprintf(&b, "Machine: %d CPUs, %s. Store: %s.", runtime.NumCPU(), runtime.Version(), map[bool]string{true: "PostgreSQL", false: "embedded"}[o.databaseURL != ""])
	if o.note != "" {
		fmt.Fprintf(&b, " Note: %s", o.note)
	}
	fmt.Fprintf(&b, "\n\nSettings: %d linked private chats (one account each, plan ultra), %d handles, %d tracked per account (%.0f chats per handle on average), posts at %d/s for %s, one post per ingest request.\n\n",
		o.chats, o.handles, o.track, float64(o.chats*o.track)/float64(o.handles), o.rate, o.duration)
	b.WriteString("| scenario | limits | posts | alerts due | alerts sent one by one | messages sent | messages/s while posting | messages/s overall | p50 | p90 | p99 | max | queue at most | queue at end | digests | 429 | server+bench CPU s | drained |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		lim := fmt.Sprintf("%.0f/s, %s per chat, digest at %d", r.limits.PerSecond, r.limits.PrivateEvery, r.limits.DigestAt)
		if r.name == "unlimited" {
			lim = "none"
		}
		during := float64(r.sentDuringPosts) / r.postsEnd.Sub(r.postsStart).Seconds()
		overall := 0.0
		if d := r.lastSend.Sub(r.firstSend).Seconds(); d > 0 {
			overall = float64(r.sent) / d
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %.0f | %.0f | %s | %s | %s | %s | %d | %d | %d | %d | %.1f | %v |\n",
			r.name, lim, r.posts, r.demand, r.alertsSent, r.sent, during, overall,
			pct(r.lat, 0.5).Round(time.Millisecond), pct(r.lat, 0.9).Round(time.Millisecond), pct(r.lat, 0.99).Round(time.Millisecond),
			pct(r.lat, 1).Round(time.Millisecond), r.maxQueue, r.stats.Queued, r.stats.Digests, r.stats.RateLimited, r.serverCPU.Seconds(), r.drained)
	}
	b.WriteString("\nSeeding (accounts, subscriptions, tracked handles and chats written to the store before the engine starts): ")
	for i, r := range rs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", r.name, r.seed.Round(time.Millisecond))
	}
	b.WriteString(".\n")
	return b.String()
}
