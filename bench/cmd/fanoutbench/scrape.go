//go:build linux

package main

// -scrape: what scraping /metrics costs the fan-out. Pairs of base runs,
// one with the server's /metrics scraped every -scrape and one without, the
// order alternating (off → on, then on → off, ...) so that a drift of the
// shared machine does not favour one side; deliveries per server CPU-second
// of the two are compared. Side traffic in both runs of a pair moves the
// families a plain fan-out leaves still: one Tweet Alerts webhook on some
// of the bench's handles, and a realtime socket opened and closed every
// second. The scrapes record which families moved.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// scrapePair is one pair of base runs.
type scrapePair struct {
	off, on *runResult
	onFirst bool
	stats   *scrapeStats
}

func (p *scrapePair) ratio() float64 {
	if p.off.perCPUSecond() == 0 {
		return 0
	}
	return p.on.perCPUSecond() / p.off.perCPUSecond()
}

// scrapeStats are what the scrapes of one run saw.
type scrapeStats struct {
	scrapes, errors int
	bytes           int
	took            time.Duration // all scrapes together
	prev            map[string]float64
	changed         map[string]bool // families with a series that changed from one scrape to the next
}

// sideTraffic is the webhook receiver and the socket churn.
type sideTraffic struct {
	hooks  atomic.Int64 // webhook requests received
	srv    *httptest.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
	churn  atomic.Int64
}

// startSide registers the webhook (an xg key tracking every 20th bench
// handle) and starts the churn.
func (b *bench) startSide(ctx context.Context) (*sideTraffic, error) {
	s := &sideTraffic{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.hooks.Add(1)
		w.WriteHeader(204)
	}))
	var issued struct {
		Key string `json:"key"`
	}
	if _, err := b.adm.do(ctx, "POST", "/admin/v1/keys", b.adm.token, "application/json",
		[]byte(`{"product":"xg","plan":"ultra"}`), &issued); err != nil {
		s.srv.Close()
		return nil, err
	}
	var handles []string
	for i := 0; i < len(b.w.handleNames) && len(handles) < 50; i += 20 {
		handles = append(handles, b.w.handleNames[i])
	}
	for i := 0; i < len(handles); i += 25 { // at most 25 per request
		body, _ := json.Marshal(map[string]any{"handles": handles[i:min(i+25, len(handles))]})
		if _, err := b.adm.do(ctx, "POST", "/v1/accounts", issued.Key, "application/json", body, nil); err != nil {
			s.srv.Close()
			return nil, err
		}
	}
	if _, err := b.adm.do(ctx, "POST", "/v1/webhooks", issued.Key, "application/json",
		[]byte(`{"url":"`+s.srv.URL+`/hook"}`), nil); err != nil {
		s.srv.Close()
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}
		fd := -1 // the socket open since the last tick
		defer func() {
			if fd >= 0 {
				unix.Close(fd)
			}
		}()
		for {
			select {
			case <-cctx.Done():
				return
			case <-t.C:
			}
			if fd >= 0 {
				unix.Close(fd)
				fd = -1
				s.churn.Add(1)
				continue
			}
			if sess, err := dialSession(b.srv.Addr, local, b.w.keys[0], 5*time.Second); err == nil {
				fd = sess.fd
			}
		}
	}()
	return s, nil
}

func (s *sideTraffic) stop() {
	s.cancel()
	s.wg.Wait()
	s.srv.Close()
}

// scrapeCompare runs o.scrapePairs pairs of base runs.
func (b *bench) scrapeCompare(ctx context.Context, p *poster) error {
	o := b.o
	side, err := b.startSide(ctx)
	if err != nil {
		return fmt.Errorf("scrape side traffic: %w", err)
	}
	defer side.stop()
	for i := range o.scrapePairs {
		pair := &scrapePair{onFirst: i%2 == 1}
		for _, on := range []bool{pair.onFirst, !pair.onFirst} {
			label := fmt.Sprintf("pair %d, scrape off", i+1)
			var sc *scraper
			if on {
				label = fmt.Sprintf("pair %d, scrape every %v", i+1, o.scrape)
				sc = startScraper(ctx, "http://"+b.srv.InternalAddr+"/metrics", o.scrape)
			}
			r, err := p.run(ctx, label, o.baseRate, o.baseDuration)
			if sc != nil {
				pair.stats = sc.stop()
			}
			if err != nil {
				return err
			}
			logf("%s", r.line())
			if on {
				pair.on = r
			} else {
				pair.off = r
			}
			time.Sleep(time.Second)
		}
		logf("pair %d: on/off = %.3f", i+1, pair.ratio())
		b.rep.scrape = append(b.rep.scrape, pair)
	}
	b.rep.sideHooks, b.rep.sideChurn = side.hooks.Load(), side.churn.Load()
	return nil
}

// scraper GETs /metrics every interval until stopped.
type scraper struct {
	stats  scrapeStats
	cancel context.CancelFunc
	done   chan struct{}
}

func startScraper(ctx context.Context, url string, every time.Duration) *scraper {
	ctx, cancel := context.WithCancel(ctx)
	s := &scraper{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.scrape(ctx, url)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *scraper) scrape(ctx context.Context, url string) {
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			s.stats.errors++
		}
		return
	}
	defer resp.Body.Close()
	values := map[string]float64{}
	n := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		n += len(line) + 1
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			values[line[:i]] = v
		}
	}
	if resp.StatusCode != 200 || sc.Err() != nil {
		s.stats.errors++
		return
	}
	s.stats.scrapes++
	s.stats.bytes += n
	s.stats.took += time.Since(start)
	if s.stats.prev != nil {
		if s.stats.changed == nil {
			s.stats.changed = map[string]bool{}
		}
		for series, v := range values {
			if old, ok := s.stats.prev[series]; !ok || old != v {
				s.stats.changed[familyOf(series)] = true
			}
		}
	}
	s.stats.prev = values
}

func (s *scraper) stop() *scrapeStats {
	s.cancel()
	<-s.done
	return &s.stats
}

// contractFamilies are CONTRACT.md section 6's families.
var contractFamilies = []string{"alertd_ws_connections", "alertd_ingest_observations_total", "alertd_deliveries_total",
	"alertd_delivery_latency_seconds", "alertd_webhook_attempts_total", "alertd_queue_depth", "alertd_ws_closes_total"}

// familyOf is the family of a series (a histogram's _bucket, _sum and
// _count series belong to it).
func familyOf(series string) string {
	name, _, _ := strings.Cut(series, "{")
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if f, ok := strings.CutSuffix(name, suffix); ok && f == "alertd_delivery_latency_seconds" {
			return f
		}
	}
	return name
}

// scrapeReport writes the comparison.
func (rep *report) scrapeReport(p func(string, ...any)) {
	if len(rep.scrape) == 0 {
		return
	}
	o := rep.o
	p("## Metrics scraping on and off")
	p("")
	p("Pairs of base runs (%d posts/s for %v), one with `/metrics` scraped every %v on `--internal-addr` and one without, the order alternating. Both runs of a pair carry the same side traffic: one Tweet Alerts webhook on 50 of the handles (%d deliveries received) and a realtime socket opened and closed every second (%d).",
		o.baseRate, o.baseDuration, o.scrape, rep.sideHooks, rep.sideChurn)
	p("")
	p("| pair | order | off: deliveries per server CPU-s | on: deliveries per server CPU-s | on/off | off p99 | on p99 | scrapes | mean scrape | exposition size |")
	p("|---|---|---|---|---|---|---|---|---|---|")
	var ratios []float64
	for i, x := range rep.scrape {
		order := "off → on"
		if x.onFirst {
			order = "on → off"
		}
		st := x.stats
		mean, size := time.Duration(0), 0
		if st.scrapes > 0 {
			mean, size = st.took/time.Duration(st.scrapes), st.bytes/st.scrapes
		}
		p("| %d | %s | %s | %s | %.3f | %v | %v | %d (%d failed) | %v | %s |", i+1, order, num(x.off.perCPUSecond()), num(x.on.perCPUSecond()),
			x.ratio(), ms(x.off.pct(99)), ms(x.on.pct(99)), st.scrapes, st.errors, mean.Round(10*time.Microsecond), kibBytes(size))
		ratios = append(ratios, x.ratio())
	}
	sort.Float64s(ratios)
	med := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		med = (ratios[len(ratios)/2-1] + med) / 2
	}
	// Pooled: every scraped run's deliveries over their CPU against the
	// unscraped runs'; a noisy pair weighs no more than its CPU.
	var onN, offN int64
	var onCPU, offCPU time.Duration
	for _, x := range rep.scrape {
		onN, onCPU = onN+x.on.delivered, onCPU+x.on.serverCPU
		offN, offCPU = offN+x.off.delivered, offCPU+x.off.serverCPU
	}
	p("")
	p("Median on/off: %.3f; pooled (all deliveries over all server CPU, on against off): %.3f (the goal: within 3%%, 0.970 to 1.030).",
		med, (float64(onN)/onCPU.Seconds())/(float64(offN)/offCPU.Seconds()))
	p("")
	moved := map[string]bool{}
	for _, x := range rep.scrape {
		for f := range x.stats.changed {
			moved[f] = true
		}
	}
	p("Families of CONTRACT.md section 6 that changed from one scrape to the next during the scraped runs:")
	p("")
	p("| family | moved |")
	p("|---|---|")
	for _, f := range contractFamilies {
		p("| `%s` | %s |", f, yes(moved[f]))
	}
	p("")
}

func kibBytes(n int) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }
