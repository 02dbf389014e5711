// Package metrics is alertd's Prometheus exposition (CONTRACT.md section
// 6): the alertd_* families, the connectors' alertd_upstream_* families and
// the Go and process collectors, through prometheus/client_golang.
//
// Nothing here is on a hot path. The engine keeps its counters where they
// are cheapest to keep (atomics its actors and sockets already own, the
// socket writers' own histograms) and hands this package one function that
// reads them all into a Reading; a scrape calls it once and turns the
// Reading into constant metrics. So a metric costs the delivery path
// nothing, and a process that is never scraped does no metrics work at all.
//
// Served by the engine on --internal-addr (with /debug/pprof/, Internal) or,
// when that is empty, on the public listener behind the admin bearer
// (FastHTTP).
package metrics

import (
	"context"
	"net/http"
	"time"

	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/xapi"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// Label values fixed by CONTRACT.md section 6. Every one is exported on
// every scrape (0 until something happens), so dashboards see stable series.
var (
	Sockets  = []string{"realtime", "tweet_only", "xg", "product"}
	Channels = []string{"realtime", "tweet_only", "xg", "product", "webhook", "chat"}
	Queues   = []string{"ingest", "webhook", "chat"}
	// WSSendPaths are alertd_ws_send_path's labels (--ws-send values).
	WSSendPaths = []string{"write", "io_uring"}
)

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Count is one labelled value.
type Count struct {
	Label string
	Value float64
}

// Delivery is one channel's deliveries: how many, and the latency
// histogram of those whose ingest time is known.
type Delivery struct {
	Channel string
	Count   uint64
	Latency latency.Snapshot
}

// Reading is everything a scrape reports, read from its owners at once.
type Reading struct {
	Sockets        []Count // label socket: open WebSockets (gauge)
	Closes         []Count // label reason: sockets closed (counter)
	IngestAccepted uint64
	IngestRejected uint64
	Deliveries     []Delivery // label channel
	// Webhook attempts by result: ok (2xx), retry (failed, retried later),
	// failed (the last attempt of a delivery that failed for good).
	WebhookOK, WebhookRetry, WebhookFailed uint64
	// WebhookSpilled counts deliveries that found their endpoint's memory
	// queue full and waited in the store (actors/webhook's MemoryQueue).
	WebhookSpilled uint64
	// IngestLogPending is the ingest log's bytes above its checkpoint:
	// accepted, not yet known to be all in the store. It grows while the
	// store is behind; a restart replays it.
	IngestLogPending int64
	Queues           []Count // label queue: what waits (gauge)
	// StoreBytes is the store's size; negative when it could not be read.
	StoreBytes int64
	// RetentionDeleted counts rows pruned by --retention, label table.
	RetentionDeleted []Count
	// WSSendPath is how the WebSocket writers send ("write" or "io_uring",
	// after any fallback); empty: not shown.
	WSSendPath string
	// ClusterSent counts messages sent to other nodes, label kind; nil on
	// a single node (no family then).
	ClusterSent []Count

	// The connectors; nil when off. UpstreamRejected counts the
	// connectors' lines that ingest refused.
	X                *xapi.Snapshot
	Launchpad        *launchpad.Snapshot
	UpstreamRejected int64
}

// Metrics is the registry of one engine: its collector plus Go's and the
// process's. Safe for concurrent scrapes.
type Metrics struct {
	reg *prometheus.Registry
	h   http.Handler
}

// New registers a collector that calls read once per scrape (with the
// scrape's context: a store read must give up when the scraper does).
func New(read func(ctx context.Context) Reading) *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&collector{read: read})
	return &Metrics{reg: reg, h: promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})}
}

// Handler serves the text exposition over net/http.
func (m *Metrics) Handler() http.Handler { return m.h }

// FastHTTP serves the text exposition on the public listener.
func (m *Metrics) FastHTTP() fasthttp.RequestHandler { return fasthttpadaptor.NewFastHTTPHandler(m.h) }

// scrapeTimeout bounds what a scrape may wait for (the store's size).
const scrapeTimeout = 5 * time.Second

// collector turns a Reading into constant metrics.
type collector struct {
	read func(ctx context.Context) Reading
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	dWSConnections = desc("alertd_ws_connections", "Open WebSockets by socket kind.", "socket")
	dIngest        = desc("alertd_ingest_observations_total", "Observations ingest accepted or rejected (HTTP and in-process connectors).", "result")
	dDeliveries    = desc("alertd_deliveries_total", "Events delivered, by channel: socket frames written, webhooks answered 2xx, chat messages the Bot API accepted.", "channel")
	dLatency       = desc("alertd_delivery_latency_seconds", "Time from ingest to the socket write, the webhook's 2xx answer or the Bot API's answer, by channel.", "channel")
	dAttempts      = desc("alertd_webhook_attempts_total", "Webhook attempts by result: ok, retry (to be retried), failed (the delivery's last).", "result")
	dQueue         = desc("alertd_queue_depth", "What waits: observations not yet handled (ingest), webhook deliveries not yet finished (webhook), chat messages (chat).", "queue")
	dCloses        = desc("alertd_ws_closes_total", "WebSockets closed, by reason (the session's own, or what the transport saw).", "reason")
	dSpilled       = desc("alertd_webhook_spilled_total", "Webhook deliveries that found their endpoint's memory queue full and waited in the store.")
	dLogPending    = desc("alertd_ingest_log_pending_bytes", "Bytes of the ingest log above its checkpoint: accepted observations whose effects are not yet known to be in the store (a restart replays them).")
	dStoreBytes    = desc("alertd_store_size_bytes", "Bytes the store takes (embedded: the database file; PostgreSQL: pg_database_size).")
	dRetention     = desc("alertd_retention_deleted_rows_total", "Rows deleted by --retention, by table.", "table")
	dWSSendPath    = desc("alertd_ws_send_path", "1 for the way WebSocket frames reach the kernel (--ws-send, after a fallback from io_uring to write), 0 for the other.", "path")
	dClusterSent   = desc("alertd_cluster_messages_total", "Messages this node sent to other nodes of its cluster, by kind: observation, event, control.", "kind")

	dUpObs         = desc("alertd_upstream_observations_total", "Observations a connector handed to ingest, by kind.", "connector", "kind")
	dUpLines       = desc("alertd_upstream_lines_total", "Upstream lines or messages a connector did not turn into observations, by result.", "connector", "result")
	dUpReconnects  = desc("alertd_upstream_reconnects_total", "Connections after the first.", "connector")
	dUpErrors      = desc("alertd_upstream_errors_total", "Failed upstream calls: non-2xx answers and transport errors.", "connector")
	dUpSinkErrors  = desc("alertd_upstream_sink_errors_total", "Hand-overs to ingest refused (backlog full), each retried.", "connector")
	dUpLag         = desc("alertd_upstream_lag_seconds", "Time from the upstream event (post created, block time) to its hand-over to ingest.", "connector")
	dUpLagMax      = desc("alertd_upstream_lag_seconds_max", "Largest lag seen since the start.", "connector")
	dUpKeepAlives  = desc("alertd_upstream_keepalives_total", "Stream keep-alive lines.", "connector")
	dUpStalls      = desc("alertd_upstream_stalls_total", "Streams given up for want of keep-alives.", "connector")
	dUpGap         = desc("alertd_upstream_gap_seconds_total", "Time the stream was down between connections.", "connector")
	dUpRules       = desc("alertd_upstream_rule_changes_total", "Filtered-stream rules added plus deleted.", "connector")
	dUpRateWaits   = desc("alertd_upstream_rate_limit_waits_total", "Calls held back until a rate-limit reset.", "connector")
	dUpUnmonitored = desc("alertd_upstream_unmonitored_handles", "Monitored handles that do not fit the API plan's rules.", "connector")
	dUpMessages    = desc("alertd_upstream_messages_total", "Notifications read from the subscription.", "connector")
	dUpBackfilled  = desc("alertd_upstream_backfilled_total", "Transactions read back after a reconnect.", "connector")
	dUpRejected    = desc("alertd_upstream_rejected_total", "Connector lines ingest refused (a connector bug).")
)

// Describe sends nothing: the collector is unchecked, since which
// connector families exist depends on the configuration.
func (c *collector) Describe(chan<- *prometheus.Desc) {}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	r := c.read(ctx)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	for _, s := range r.Sockets {
		gauge(dWSConnections, s.Value, s.Label)
	}
	counter(dIngest, float64(r.IngestAccepted), "accepted")
	counter(dIngest, float64(r.IngestRejected), "rejected")
	for _, d := range r.Deliveries {
		counter(dDeliveries, float64(d.Count), d.Channel)
		ch <- histogram(dLatency, &d.Latency, d.Channel)
	}
	counter(dAttempts, float64(r.WebhookOK), "ok")
	counter(dAttempts, float64(r.WebhookRetry), "retry")
	counter(dAttempts, float64(r.WebhookFailed), "failed")
	counter(dSpilled, float64(r.WebhookSpilled))
	gauge(dLogPending, float64(r.IngestLogPending))
	for _, q := range r.Queues {
		gauge(dQueue, q.Value, q.Label)
	}
	for _, x := range r.Closes {
		counter(dCloses, x.Value, x.Label)
	}
	if r.StoreBytes >= 0 {
		gauge(dStoreBytes, float64(r.StoreBytes))
	}
	for _, x := range r.RetentionDeleted {
		counter(dRetention, x.Value, x.Label)
	}
	if r.WSSendPath != "" {
		for _, p := range WSSendPaths {
			gauge(dWSSendPath, b2f(p == r.WSSendPath), p)
		}
	}
	for _, x := range r.ClusterSent {
		counter(dClusterSent, x.Value, x.Label)
	}
	collectUpstream(ch, &r, gauge, counter)
}

func collectUpstream(ch chan<- prometheus.Metric, r *Reading, gauge, counter func(*prometheus.Desc, float64, ...string)) {
	lag := func(name string, sumMS, n, maxMS int64) {
		ch <- prometheus.MustNewConstSummary(dUpLag, uint64(n), float64(sumMS)/1e3, nil, name)
		gauge(dUpLagMax, float64(maxMS)/1e3, name)
	}
	if x := r.X; x != nil {
		const n = "x"
		counter(dUpObs, float64(x.Posts), n, "post")
		counter(dUpObs, float64(x.Users), n, "user")
		counter(dUpObs, float64(x.Followings), n, "following")
		counter(dUpLines, float64(x.Skipped), n, "skipped")
		counter(dUpLines, float64(x.Malformed), n, "malformed")
		counter(dUpReconnects, float64(x.Reconnects), n)
		counter(dUpErrors, float64(x.HTTPErrors), n)
		counter(dUpSinkErrors, float64(x.SinkErrors), n)
		counter(dUpKeepAlives, float64(x.KeepAlives), n)
		counter(dUpStalls, float64(x.Stalls), n)
		counter(dUpGap, float64(x.GapMillis)/1e3, n)
		counter(dUpRules, float64(x.RuleChanges), n)
		counter(dUpRateWaits, float64(x.RateLimitWaits), n)
		gauge(dUpUnmonitored, float64(x.Unmonitored), n)
		lag(n, x.LagMillisSum, x.LagCount, x.LagMillisMax)
	}
	if l := r.Launchpad; l != nil {
		const n = "launchpad"
		counter(dUpObs, float64(l.Launches), n, "token_launched")
		counter(dUpObs, float64(l.Graduations), n, "graduated")
		counter(dUpLines, float64(l.Skipped), n, "skipped")
		counter(dUpLines, float64(l.Malformed), n, "malformed")
		counter(dUpReconnects, float64(l.Reconnects), n)
		counter(dUpSinkErrors, float64(l.SinkErrors), n)
		counter(dUpMessages, float64(l.Notifications), n)
		counter(dUpBackfilled, float64(l.Backfilled), n)
		lag(n, l.LagMillisSum, l.LagCount, l.LagMillisMax)
	}
	if r.X != nil || r.Launchpad != nil {
		counter(dUpRejected, float64(r.UpstreamRejected))
	}
}

// histogram renders a latency snapshot with Prometheus's cumulative buckets.
func histogram(d *prometheus.Desc, s *latency.Snapshot, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(latency.Bounds))
	var cum uint64
	for i, b := range latency.Bounds {
		cum += s.Counts[i]
		buckets[b.Seconds()] = cum
	}
	return prometheus.MustNewConstHistogram(d, cum+s.Counts[len(latency.Bounds)], s.Sum.Seconds(), buckets, labels...)
}
