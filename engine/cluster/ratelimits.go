package cluster

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/state/account"
)

// EventRates carries the nodes' counts of the REST rate windows and the CA
// Search quotas. Items: "r,<family>,<account>,<window start ms>,<count>"
// (the node's count in its window of an account's REST family) and
// "s,<account>,<second start ms>,<count>,<minute start ms>,<count>,<day
// ms>,<calls>" (its CA Search windows, and its calls of the day since its
// last item of the account).
const EventRates = "rates"

// RegRates is not a registry: the feed calls its reload when its LISTEN
// holds (at start and after a lost connection), when this node reads
// today's CA Search counts from the store again (the calls announced while
// it was not listening are in them once their node wrote them).
const RegRates = "rates"

// flushGap paces the announcements: the first count after a quiet spell
// goes at once, the ones that follow within flushGap wait for it and go
// together (one NOTIFY per node and gap at most, whatever the request
// rate).
const flushGap = 50 * time.Millisecond

// RateCounts makes the REST rate windows and the CA Search quotas count
// every node's requests (CONTRACT section 7). Each node counts its own in
// memory, as a single node does, and announces the counts it changed on
// the feed (at most every flushGap); a request is admitted against its
// own count plus the others' as last heard (ratewindow.Fixed), so a
// request waits for no round trip.
//
// Over-admission bound: a count reaches the other nodes within flushGap
// plus a NOTIFY's delay (tens of ms), so in one window the cluster admits
// at most the limit plus what the other nodes admitted in that lag: two
// nodes taking an account's requests within about 70 ms of each other may
// both admit its last request of a window (with requests spread evenly,
// up to nodes × the requests each admits in the lag). The day's CA Search
// count is a sum of calls (deltas), which no lag loses: a call is counted
// by every node once it is heard.
//
// mu guards the two dirty sets; the flush goroutine takes them under it
// and reads the windows (their own locks) without it.
type RateCounts struct {
	feed  *Feed
	rest  *account.Registry
	quota *casearch.Quota // nil until ShareQuota

	mu       sync.Mutex
	rates    map[rateKey]struct{}
	searches map[string]struct{}
	kick     chan struct{}

	cancel context.CancelFunc
	done   chan struct{}
}

type rateKey struct {
	account string
	family  int
}

// ShareRates wires reg's REST windows into f (before f starts) and starts
// the announcing goroutine; Stop ends it.
func ShareRates(f *Feed, reg *account.Registry) *RateCounts {
	c := &RateCounts{feed: f, rest: reg, rates: map[rateKey]struct{}{}, searches: map[string]struct{}{},
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	reg.ShareRates(c.restCounted)
	f.HandleEvents(EventRates, c.heard)
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.flush(ctx)
	return c
}

// ShareQuota wires CA Search's quota in too (before f starts); reload
// reads today's counts from the store again into q (Quota.Load keeps the
// larger count).
func (c *RateCounts) ShareQuota(q *casearch.Quota, reload func(ctx context.Context) error) {
	c.quota = q
	q.Share(c.searchCounted)
	c.feed.Register(RegRates, func(ctx context.Context, _ []string) error { return reload(ctx) })
}

// Stop ends the announcing goroutine; counts not yet announced stay here.
func (c *RateCounts) Stop() {
	c.cancel()
	<-c.done
}

// shareable says whether an account id can travel in an item (the ids
// alertd makes always can).
func shareable(account string) bool { return account != "" && !strings.ContainsAny(account, ", \t\n") }

func (c *RateCounts) restCounted(account string, family int) {
	if !shareable(account) {
		return
	}
	c.mu.Lock()
	c.rates[rateKey{account, family}] = struct{}{}
	c.mu.Unlock()
	signal(c.kick)
}

func (c *RateCounts) searchCounted(account string) {
	if !shareable(account) {
		return
	}
	c.mu.Lock()
	c.searches[account] = struct{}{}
	c.mu.Unlock()
	signal(c.kick)
}

// flush announces the changed counts: at once after a quiet spell, then
// at most every flushGap.
func (c *RateCounts) flush(ctx context.Context) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		for _, it := range c.items() {
			c.feed.Publish(EventRates, it)
		}
		sleep(ctx, flushGap)
	}
}

// items takes the dirty sets and encodes their current counts.
func (c *RateCounts) items() []string {
	c.mu.Lock()
	rates, searches := c.rates, c.searches
	c.rates, c.searches = map[rateKey]struct{}{}, map[string]struct{}{}
	c.mu.Unlock()
	out := make([]string, 0, len(rates)+len(searches))
	for k := range rates {
		start, n := c.rest.Limiter(k.account).Window(k.family).Count()
		out = append(out, encodeRate(k, start, n))
	}
	for a := range searches {
		out = append(out, encodeSearch(a, c.quota.Announce(a)))
	}
	return out
}

// heard applies another node's counts.
func (c *RateCounts) heard(node string, items []string) {
	for _, it := range items {
		switch {
		case strings.HasPrefix(it, "r,"):
			if k, start, n, ok := decodeRate(it); ok {
				c.rest.Limiter(k.account).Window(k.family).Heard(node, start, n)
			}
		case strings.HasPrefix(it, "s,") && c.quota != nil:
			if a, counts, ok := decodeSearch(it); ok {
				c.quota.Heard(node, a, counts)
			}
		}
	}
}

func encodeRate(k rateKey, start time.Time, n int) string {
	return "r," + strconv.Itoa(k.family) + "," + k.account + "," + strconv.FormatInt(start.UnixMilli(), 10) + "," + strconv.Itoa(n)
}

func decodeRate(s string) (k rateKey, start time.Time, n int, ok bool) {
	f := strings.Split(s, ",")
	if len(f) != 5 {
		return k, start, 0, false
	}
	fam, err1 := strconv.Atoi(f[1])
	ms, err2 := strconv.ParseInt(f[3], 10, 64)
	n, err3 := strconv.Atoi(f[4])
	if err1 != nil || err2 != nil || err3 != nil || fam < 0 || fam >= account.MaxRateFamilies || n < 0 || f[2] == "" {
		return k, start, 0, false
	}
	return rateKey{f[2], fam}, time.UnixMilli(ms), n, true
}

func encodeSearch(account string, c casearch.Counts) string {
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	return "s," + account + "," + ms(c.SecStart) + "," + strconv.Itoa(c.SecN) + "," + ms(c.MinStart) + "," +
		strconv.Itoa(c.MinN) + "," + ms(c.Day) + "," + strconv.Itoa(c.Delta)
}

func decodeSearch(s string) (string, casearch.Counts, bool) {
	f := strings.Split(s, ",")
	if len(f) != 8 || f[1] == "" {
		return "", casearch.Counts{}, false
	}
	var n [6]int64
	for i := range n {
		v, err := strconv.ParseInt(f[i+2], 10, 64)
		if err != nil || v < 0 {
			return "", casearch.Counts{}, false
		}
		n[i] = v
	}
	return f[1], casearch.Counts{SecStart: time.UnixMilli(n[0]), SecN: int(n[1]), MinStart: time.UnixMilli(n[2]),
		MinN: int(n[3]), Day: time.UnixMilli(n[4]).UTC(), Delta: int(n[5])}, true
}
