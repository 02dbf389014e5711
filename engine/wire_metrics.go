package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/webhook"
	adminapi "github.com/alertd/alertd/edge/api/admin"
	"github.com/alertd/alertd/engine/cluster"
	"github.com/alertd/alertd/internal/metrics"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// socketKinds are the session kinds, in the order metrics list them; each
// kind is also the ws delivery class its sockets count under.
var socketKinds = []session.SocketKind{session.KindRealtime, session.KindTweetOnly, session.KindTweetAlerts, session.KindProduct}

// reading reads every counter /metrics shows from its owner, once per
// scrape: session and transport counters, ingest counts, webhook engines,
// the router's backlog, the connectors, the store's size and queue.
func (e *Engine) reading(ctx context.Context) metrics.Reading {
	r := metrics.Reading{StoreBytes: -1}
	st := e.sessions.Stats
	for _, k := range socketKinds {
		r.Sockets = append(r.Sockets, metrics.Count{Label: k.String(), Value: float64(st.Open(k))})
		n, lat := e.ws.Deliveries(uint8(k))
		r.Deliveries = append(r.Deliveries, metrics.Delivery{Channel: k.String(), Count: n, Latency: lat})
	}
	closes := map[string]float64{}
	st.EachClose(func(_ session.SocketKind, reason session.CloseReason, n uint64) {
		closes[reason.String()] += float64(n)
	})
	for reason, n := range closes {
		r.Closes = append(r.Closes, metrics.Count{Label: reason, Value: n})
	}
	slices.SortFunc(r.Closes, func(a, b metrics.Count) int { return strings.Compare(a.Label, b.Label) })

	r.WSSendPath = e.ws.SendPath().String()
	r.IngestAccepted, r.IngestRejected = e.ingested.Load()
	r.IngestLogPending = max(e.ilog.End()-e.ilog.Checkpoint(), 0)
	hooks := metrics.Delivery{Channel: "webhook"}
	for _, s := range e.webhookStats() {
		hooks.Count += uint64(s.Delivered)
		hooks.Latency.Add(s.Latency)
		r.WebhookOK += uint64(s.Delivered)
		r.WebhookRetry += uint64(s.Retried)
		r.WebhookFailed += uint64(s.Failed)
		r.WebhookSpilled += uint64(s.Spilled)
	}
	chat := metrics.Delivery{Channel: "chat"}
	cs, _ := e.ChatStats() // zero without a bot
	chat.Count, chat.Latency = uint64(cs.Sent), cs.Latency
	r.Deliveries = append(r.Deliveries, hooks, chat)

	r.Queues = []metrics.Count{{Label: "ingest", Value: float64(e.router.Backlog())},
		{Label: "webhook", Value: float64(max(e.storeStats.queued(ctx, e), 0))}, {Label: "chat", Value: float64(cs.Queued)}}
	r.StoreBytes = e.storeStats.size(ctx, e)
	e.pruner.Deleted(func(kind persistence.Prunable, n uint64) {
		r.RetentionDeleted = append(r.RetentionDeleted, metrics.Count{Label: string(kind), Value: float64(n)})
	})
	if e.cluster != nil {
		for i, n := range e.cluster.Sent() {
			r.ClusterSent = append(r.ClusterSent, metrics.Count{Label: cluster.SentKinds[i], Value: float64(n)})
		}
	}
	u := e.UpstreamStats()
	r.X, r.Launchpad, r.UpstreamRejected = u.X, u.Launchpad, u.Rejected
	return r
}

// webhookStats are the counters of every webhook engine (Tweet Alerts, cw,
// ct, et).
func (e *Engine) webhookStats() []webhook.Stats {
	var out []webhook.Stats
	if e.xgHooks != nil {
		out = append(out, e.xgHooks.Stats())
	}
	if e.watchHooks != nil {
		for _, p := range []protocol.Product{protocol.ProductCW, protocol.ProductCT, protocol.ProductET} {
			out = append(out, e.watchHooks.Stats(p))
		}
	}
	return out
}

// webhookLogs are the delivery logs the admin API shows, by product.
func (e *Engine) webhookLogs() map[protocol.Product]adminapi.Webhooks {
	m := map[protocol.Product]adminapi.Webhooks{}
	if e.xgHooks != nil {
		m[protocol.ProductTweetAlerts] = e.xgHooks
	}
	if e.watchHooks != nil {
		for _, p := range []protocol.Product{protocol.ProductCW, protocol.ProductCT, protocol.ProductET} {
			if w := e.watchHooks.Engine(p); w != nil {
				m[p] = w
			}
		}
	}
	return m
}

// storeStatsEvery is how long a store read for /metrics and /health is
// reused: scrapes stay cheap however often they come.
const storeStatsEvery = 10 * time.Second

// storeStats are the store's size and queued webhook deliveries, each read
// from the store at most every storeStatsEvery.
type storeStats struct {
	bytes, queue cached
}

// size is the store's size in bytes, -1 when it cannot be read.
func (s *storeStats) size(ctx context.Context, e *Engine) int64 {
	return s.bytes.get(func() int64 {
		if sz, ok := e.store.(interface {
			Size(context.Context) (int64, error)
		}); ok {
			if n, err := sz.Size(ctx); err == nil {
				return n
			}
		}
		return -1
	})
}

// queued is the number of webhook deliveries not yet finished, every
// product's (0 when the store cannot say).
func (s *storeStats) queued(ctx context.Context, e *Engine) int64 {
	return s.queue.get(func() int64 {
		n, err := e.store.QueuedDeliveries(ctx)
		if err != nil {
			return 0
		}
		return n
	})
}

// cached is a value re-read at most every storeStatsEvery. mu guards the
// fields only, never the read itself (store I/O): while one caller reads,
// the others get the last value (-1 before the first read).
type cached struct {
	mu      sync.Mutex
	v       int64
	at      time.Time
	reading bool
}

func (c *cached) get(read func() int64) int64 {
	c.mu.Lock()
	if c.reading || (!c.at.IsZero() && time.Since(c.at) < storeStatsEvery) {
		v := c.v
		if c.at.IsZero() {
			v = -1
		}
		c.mu.Unlock()
		return v
	}
	c.reading = true
	c.mu.Unlock()
	v := read()
	c.mu.Lock()
	c.v, c.at, c.reading = v, time.Now(), false
	c.mu.Unlock()
	return v
}
