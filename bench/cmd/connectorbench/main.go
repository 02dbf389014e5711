// Command connectorbench measures the real upstream connectors on their
// fakes: decoder throughput (posts and launchpad events per second on one
// core) and the stream-to-socket latency the connector adds. For latency it
// runs the engine in process with the connector pointed at its fake on
// loopback, a client socket subscribed to what the fake emits, and sends the
// same content two ways at a paced rate: through the fake (the connector's
// path) and through POST /ingest/v1/observations (the ingest API's path).
// The difference of the two is what the connector adds. It writes a
// markdown report; numbers are for reading, never asserted.
//
//	go run ./bench/cmd/connectorbench -out bench/results
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
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/bench"
	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
	"github.com/alertd/alertd/upstream/xapi"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
	"github.com/gorilla/websocket"
)

type options struct {
	out, note string
	rate      int
	duration  time.Duration
}

func main() {
	o := &options{}
	flag.StringVar(&o.out, "out", "bench/results", "directory for the report (connectors-<date>.md and connectors-latest.md); empty: stdout only")
	flag.StringVar(&o.note, "note", "", "free text for the report's settings")
	flag.IntVar(&o.rate, "rate", 50, "items per second of each latency run")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "length of each latency run")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "connectorbench:", err)
		os.Exit(1)
	}
}

type decodeResult struct {
	name          string
	ns, bytes     float64
	items         float64 // observations per op
	allocs, perOp int64
}

type latencyResult struct {
	connector, path string
	sent, got       int
	p50, p90, p99   time.Duration
	max             time.Duration
}

func run(o *options) error {
	decs := decoders()
	var lats []latencyResult
	x, err := latencyX(o)
	if err != nil {
		return fmt.Errorf("x latency: %w", err)
	}
	lats = append(lats, x...)
	lp, err := latencyLaunchpad(o)
	if err != nil {
		return fmt.Errorf("launchpad latency: %w", err)
	}
	lats = append(lats, lp...)
	report := render(o, decs, lats)
	fmt.Print(report)
	if o.out == "" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	name := "connectors-" + time.Now().UTC().Format("2006-01-02") + ".md"
	for _, f := range []string{name, "connectors-latest.md"} {
		if err := os.WriteFile(filepath.Join(o.out, f), []byte(report), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// decoders measures each decoder on one goroutine (one core's worth).
func decoders() []decodeResult {
	lines := bench.XStreamLines()
	msgs := bench.LaunchpadNotifications()
	var size, msize int
	for _, l := range lines {
		size += len(l)
	}
	for _, m := range msgs {
		msize += len(m)
	}
	x := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, _, err := xapi.DecodePost(lines[i%len(lines)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	events := 0
	lp := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		events = 0
		for i := 0; b.Loop(); i++ {
			sig, _, logs, err := launchpad.DecodeNotification(msgs[i%len(msgs)])
			if err != nil {
				b.Fatal(err)
			}
			evs, _, _ := launchpad.DecodeLogs(launchpad.DefaultProgram, logs)
			for _, ev := range evs {
				if _, err := launchpad.Observation(ev, sig); err != nil {
					b.Fatal(err)
				}
				events++
			}
		}
	})
	perMsg := float64(events) / float64(lp.N) // launches and graduations per notification in the mix
	return []decodeResult{
		{name: "x: stream line to post observation (post, reply, quote, repost with includes)", ns: float64(x.NsPerOp()), bytes: float64(size) / float64(len(lines)),
			items: 1, allocs: x.AllocsPerOp(), perOp: x.AllocedBytesPerOp()},
		{name: "launchpad: logsNotification to launchpad observations (a launch, a buy that completes a curve, a plain trade)", ns: float64(lp.NsPerOp()),
			bytes: float64(msize) / float64(len(msgs)), items: perMsg, allocs: lp.AllocsPerOp(), perOp: lp.AllocedBytesPerOp()},
	}
}

// --- the engine and a socket ---

type rig struct {
	e     *engine.Engine
	base  string
	close func()
}

func startEngine(mutate func(*engine.Config)) (*rig, error) {
	dir, err := os.MkdirTemp("", "connectorbench-")
	if err != nil {
		return nil, err
	}
	cfg := engine.DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.AdminToken = "127.0.0.1:0", dir, "adm_connectorbench"
	cfg.Upstream.HandlesEvery, cfg.Upstream.RuleDebounce = 50*time.Millisecond, 50*time.Millisecond
	mutate(&cfg)
	e, err := engine.Start(context.Background(), &cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		return nil, err
	}
	go func() { _ = e.Serve() }()
	return &rig{e: e, base: "http://" + e.Addr().String(), close: func() { e.Close(); os.RemoveAll(dir) }}, nil
}

func (r *rig) call(method, path, bearer string, body any, contentType string) (json.RawMessage, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, r.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: HTTP %d %s", method, path, resp.StatusCode, raw)
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Data, nil
}

func (r *rig) key(body map[string]any) (string, error) {
	d, err := r.call("POST", "/admin/v1/keys", r.e.AdminToken(), body, "application/json")
	if err != nil {
		return "", err
	}
	var k struct {
		Key string `json:"key"`
	}
	return k.Key, json.Unmarshal(d, &k)
}

// clock stamps items when sent and when their frame arrives.
type clock struct {
	mu   sync.Mutex
	sent map[string]time.Time
	lat  []time.Duration
	done chan struct{}
	want int
}

func newClock(want int) *clock {
	return &clock{sent: map[string]time.Time{}, done: make(chan struct{}), want: want}
}

func (c *clock) send(id string) {
	c.mu.Lock()
	c.sent[id] = time.Now()
	c.mu.Unlock()
}

func (c *clock) got(id string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.sent[id]; ok {
		delete(c.sent, id)
		c.lat = append(c.lat, now.Sub(t))
		if len(c.lat) == c.want {
			close(c.done)
		}
	}
}

// read hands every frame's id (picked by idOf) to the clock until the socket closes.
func read(ws *websocket.Conn, c func() *clock, idOf func([]byte) string) {
	for {
		_, b, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if id := idOf(b); id != "" {
			c().got(id)
		}
	}
}

// paced calls send(i) rate times a second for d and waits for the frames.
func paced(rate int, d time.Duration, c *clock, send func(i int) error) (int, error) {
	n := int(float64(rate) * d.Seconds())
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	for i := range n {
		<-t.C
		if err := send(i); err != nil {
			return i, err
		}
	}
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
	}
	return n, nil
}

func summarize(connector, path string, sent int, c *clock) latencyResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := slices.Clone(c.lat)
	slices.Sort(l)
	r := latencyResult{connector: connector, path: path, sent: sent, got: len(l)}
	if len(l) > 0 {
		at := func(q float64) time.Duration { return l[min(len(l)-1, int(q*float64(len(l))))] }
		r.p50, r.p90, r.p99, r.max = at(0.5), at(0.9), at(0.99), l[len(l)-1]
	}
	return r
}

// --- x ---

func latencyX(o *options) ([]latencyResult, error) {
	fake := xapifake.New(xapifake.Options{})
	base := fake.Start()
	defer fake.Close()
	users := fake.SeedAccounts(10)
	r, err := startEngine(func(c *engine.Config) { c.Upstream.XBearerToken, c.Upstream.XAPIURL = fake.Token(), base })
	if err != nil {
		return nil, err
	}
	defer r.close()
	key, err := r.key(map[string]any{"product": "dt", "plan": "pro"})
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		if _, err := r.call("POST", "/v1/dt/targets", key, map[string]any{"handle": strings.ToLower(u.Username)}, "application/json"); err != nil {
			return nil, err
		}
	}
	for deadline := time.Now().Add(10 * time.Second); len(fake.Rules()) == 0 || fake.WaitStreams(context.Background(), 1) != nil; {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no rules")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the rules' last rewrite settles
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(r.base, "http")+"/v1/dt/realtime/ws", nil)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	_, _, _ = ws.ReadMessage() // HELLO
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"op":2,"d":"`+key+`"}`)); err != nil {
		return nil, err
	}
	_, _, _ = ws.ReadMessage() // READY
	var mu sync.Mutex
	var cur *clock
	get := func() *clock { mu.Lock(); defer mu.Unlock(); return cur }
	go read(ws, get, func(b []byte) string {
		var f struct {
			D struct {
				Data struct {
					ID string `json:"id"`
				} `json:"data"`
			} `json:"d"`
		}
		_ = json.Unmarshal(b, &f)
		return f.D.Data.ID
	})
	rnd := rand.New(rand.NewPCG(3, 4))
	var out []latencyResult
	for _, path := range []string{"connector", "ingest API"} {
		c := newClock(int(float64(o.rate) * o.duration.Seconds()))
		mu.Lock()
		cur = c
		mu.Unlock()
		seq := map[string]int64{"connector": 1_880_000_000_000_000_000, "ingest API": 1_890_000_000_000_000_000}[path]
		sent, err := paced(o.rate, o.duration, c, func(i int) error {
			id := fmt.Sprint(seq + int64(i))
			p := xapifake.RandomPost(rnd, users[i%len(users)], id, time.Now())
			line := fake.Line(p)
			if path == "connector" {
				c.send(id)
				fake.PushRaw(line)
				return nil
			}
			obs, _, err := xapi.DecodePost(line)
			if err != nil {
				return err
			}
			c.send(id)
			_, err = r.call("POST", "/ingest/v1/observations", r.e.AdminToken(), obs, "application/x-ndjson")
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, summarize("x", path, sent, c))
	}
	return out, nil
}

// --- launchpad ---

func latencyLaunchpad(o *options) ([]latencyResult, error) {
	fake := launchpadfake.New()
	url := fake.Start()
	defer fake.Close()
	r, err := startEngine(func(c *engine.Config) { c.Upstream.SolanaRPCWSURL = url })
	if err != nil {
		return nil, err
	}
	defer r.close()
	key, err := r.key(map[string]any{"product": "pf", "max_wallets": 3})
	if err != nil {
		return nil, err
	}
	wallet := launchpadfake.Address("bench wallet")
	if _, err := r.call("POST", "/v1/pf/targets", key, map[string]any{"wallet_address": wallet, "alert_types": []string{"token_launch"}}, "application/json"); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := fake.WaitSubscribed(ctx, 1); err != nil {
		return nil, err
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(r.base, "http")+"/v1/pf/ws?api_key="+key, nil)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	var mu sync.Mutex
	var cur *clock
	get := func() *clock { mu.Lock(); defer mu.Unlock(); return cur }
	go read(ws, get, func(b []byte) string {
		var f struct {
			Data struct {
				Mint string `json:"mint"`
			} `json:"data"`
		}
		_ = json.Unmarshal(b, &f)
		return f.Data.Mint
	})
	rnd := rand.New(rand.NewPCG(5, 6))
	var out []latencyResult
	for k, path := range []string{"connector", "ingest API"} {
		c := newClock(int(float64(o.rate) * o.duration.Seconds()))
		mu.Lock()
		cur = c
		mu.Unlock()
		sent, err := paced(o.rate, o.duration, c, func(i int) error {
			ev := launchpadfake.RandomLaunch(rnd, wallet, k*1_000_000+i, time.Now().Unix())
			logs := launchpadfake.Logs(launchpad.DefaultProgram, "Create", ev.Data())
			sig := launchpadfake.Signature(fmt.Sprint(path, i))
			if path == "connector" {
				c.send(ev.Mint)
				fake.Send(sig, logs, false)
				return nil
			}
			evs, _, _ := launchpad.DecodeLogs(launchpad.DefaultProgram, logs)
			obs, err := launchpad.Observation(evs[0], sig)
			if err != nil {
				return err
			}
			c.send(ev.Mint)
			_, err = r.call("POST", "/ingest/v1/observations", r.e.AdminToken(), obs, "application/x-ndjson")
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, summarize("launchpad", path, sent, c))
	}
	return out, nil
}

// --- report ---

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func render(o *options, decs []decodeResult, lats []latencyResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# alertd upstream connectors bench, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	b.WriteString("Numbers from `bench/cmd/connectorbench`: the decoders on one goroutine, then the engine in process (embedded store) " +
		"with each connector pointed at its fake on loopback. Latency runs from the moment an item is handed to the fake (or its " +
		"ingest request is sent) to the moment the client socket reads its frame. Read ratios within one report.\n\n")
	b.WriteString("## Machine\n\n| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| CPUs | %d |\n| Go | %s |\n| commit | %s |\n", runtime.NumCPU(), runtime.Version(), commit())
	if o.note != "" {
		fmt.Fprintf(&b, "| note | %s |\n", o.note)
	}
	b.WriteString("\n## Decoders (one core)\n\n| decoder | input bytes | ns/op | inputs/s | observations/s | allocs/op | B/op |\n|---|---|---|---|---|---|---|\n")
	for _, d := range decs {
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.0f | %.0f | %d | %d |\n", d.name, d.bytes, d.ns, 1e9/d.ns, d.items*1e9/d.ns, d.allocs, d.perOp)
	}
	fmt.Fprintf(&b, "\n## Stream to socket (%d items/s for %v per row)\n\n", o.rate, o.duration)
	b.WriteString("| connector | path | sent | received | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|---|---|\n")
	for _, l := range lats {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s |\n", l.connector, l.path, l.sent, l.got, ms(l.p50), ms(l.p90), ms(l.p99), ms(l.max))
	}
	b.WriteString("\nWhat the connector adds is the difference between its row and the ingest API row of the same connector: the fake's " +
		"write and flush, the connector's read and decode, and the in-process hand-over, against an HTTP request to the ingest API.\n")
	return b.String()
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, _ := exec.Command("git", "status", "--porcelain").Output(); len(st) > 0 {
		c += " (+ uncommitted changes)"
	}
	return c
}
