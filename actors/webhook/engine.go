// Package webhook is the delivery engine of signed webhooks, shared by the
// products that have them (Tweet Alerts, Community Watch, Convergence
// Tracker, Engagement Tracker). A product describes how it delivers with a
// Policy (attempts, backoff, timeout, signature, headers, disabling) and
// hands the engine its endpoints and bodies; the engine owns the rest.
//
// Shape: one actor per endpoint owns that endpoint's queue, retries and
// consecutive-failure count; a fixed pool of workers makes the HTTP
// attempts, so concurrency is bounded whatever the number of endpoints; one
// goroutine writes the queue ahead (wal.go) and one applies the outcomes to
// the store in order (effects.go).
//
// Fairness: an endpoint submits at most Policy.PerEndpoint attempts to the
// pool at a time and the pool serves them first come first served, so the
// pool goes round robin over the endpoints that have work, and one that
// never answers holds only its own PerEndpoint workers until the timeout.
// Memory: an endpoint holds at most Config.MemoryQueue deliveries; the rest
// wait in the store and are read back in order as its queue drains
// (endpoint.go).
//
// Durability: a delivery is inserted in the store before any endpoint sees
// it, and stays queued there until it succeeded, finally failed, or lost
// its endpoint. Start reloads what is still queued, so a crash or a restart
// loses none: delivery is at least once, and every attempt carries the same
// delivery id so receivers can drop duplicates.
//
// The delivery log: every attempt (status code, latency, error, result) is
// stored beside its delivery, and a finished delivery keeps its outcome,
// until retention prunes them. Redeliver queues finished ones again.
package webhook

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// Endpoint is one receiver of deliveries.
type Endpoint struct {
	ID     int64
	URL    string
	Secret string
	// Headers are sent to this endpoint only (e.g. X-CW-Client-Id).
	Headers map[string]string
	// Failures is the consecutive failed deliveries so far (from the store,
	// so counting goes on across restarts).
	Failures int
}

// Outgoing is one delivery to make.
type Outgoing struct {
	EndpointID int64
	// DeliveryID is unique within the engine's scope; a second delivery with
	// the same id while the first is queued is dropped. Empty: a random id.
	DeliveryID string
	Body       []byte
}

// Queue is the durable delivery queue and its log
// (persistence.WebhookLogStore).
type Queue interface {
	InsertDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) error
	RecordAttempts(ctx context.Context, scope string, as []persistence.WebhookAttempt) error
	DropDeliveries(ctx context.Context, scope string, ids []string, at time.Time) error
	DropEndpointDeliveries(ctx context.Context, scope string, endpoint int64, at time.Time) error
	QueuedEndpoints(ctx context.Context, scope string) ([]int64, error)
	ListEndpointDeliveries(ctx context.Context, scope string, endpoint int64, limit int) ([]persistence.WebhookDelivery, error)
	RequeueDeliveries(ctx context.Context, scope string, endpoint int64, f persistence.RedeliverFilter) ([]persistence.WebhookDelivery, error)
	DeliveryLog(ctx context.Context, scope string, endpoint int64, before int64, limit int) ([]persistence.WebhookLogEntry, error)
}

// Health hears the consecutive-failure count of an endpoint whenever it
// changes: after each failed delivery, after the first success that follows
// failures (0), and with disabled true once the endpoint reached
// Policy.DisableAfter (the engine has dropped it and its queue then). Calls
// come from one goroutine, in order.
type Health interface {
	EndpointHealth(ctx context.Context, id int64, failures int, disabled bool) error
}

// Config builds an Engine.
type Config struct {
	// Scope names the product in the shared queue ("xg", "cw", ...).
	Scope  string
	Policy Policy
	Queue  Queue
	Health Health // may be nil
	// Owners says which endpoints this node sends for (a node of a
	// cluster, owned.go); nil: all of them.
	Owners Owners
	// Guard checks every connection's address; nil allows any address.
	Guard  *Guard
	System *actor.ActorSystem
	// Supervisor supervises the endpoint actors (the engine passes the
	// kit's, kit.Supervisor): one that panics restarts as a new instance of
	// the endpoint as last Put, with its current failure count, and is
	// never stopped. What the failed instance held (queued, backing off)
	// stays stored and resumes at the next Start. Nil: protoactor's default
	// (stopped after 10 failures in 10 s).
	Supervisor actor.SupervisorStrategy
	// Workers bounds the attempts in flight across all endpoints (default
	// 64). Each endpoint has at most Policy.PerEndpoint of them, so one
	// that never answers holds only that many workers, until its timeout.
	Workers int
	// MemoryQueue bounds the deliveries each endpoint holds in memory
	// besides those in flight and in backoff (default 1024); the rest wait
	// in the store and are read back as the queue drains.
	MemoryQueue int
	Now         func() time.Time
	Log         *slog.Logger
}

// Stats are counters since the engine started. Latency is the time from
// Publish to the 2xx answer of each delivered delivery (retries included).
// Spilled counts deliveries that reached a full endpoint queue and waited
// in the store to be read back.
type Stats struct {
	Published, Delivered, Failed, Retried, Disabled, Spilled int64
	Latency                                                  latency.Snapshot
}

// Engine delivers webhooks. Its methods are safe for concurrent use.
type Engine struct {
	cfg    Config
	root   *actor.RootContext
	send   *sender
	base   context.Context
	cancel context.CancelFunc

	// mu guards eps, current and started.
	mu      sync.Mutex
	eps     map[int64]*actor.PID
	current map[int64]Endpoint // as last Put, with the actor's failure count: what a restart starts from
	started bool
	closing atomic.Bool

	wal     *wal
	effects *effects
	pool    *kit.Workers[job]

	published, delivered, failed, retried, disabled, spilled atomic.Int64
	latency                                                  latency.Histogram
}

// New returns an engine; Put its endpoints, then Start it.
func New(cfg Config) *Engine {
	cfg.Policy.resolve()
	if cfg.Workers <= 0 {
		cfg.Workers = 64
	}
	if cfg.MemoryQueue <= 0 {
		cfg.MemoryQueue = 1024
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.System == nil {
		cfg.System = actor.NewActorSystem()
	}
	e := &Engine{cfg: cfg, root: cfg.System.Root, eps: map[int64]*actor.PID{}, current: map[int64]Endpoint{}}
	e.base, e.cancel = context.WithCancel(context.Background())
	e.send = newSender(e.base, cfg.Guard, cfg.Policy.Timeout, cfg.Workers)
	e.wal = newWAL(e)
	e.effects = newEffects(e)
	e.pool = kit.NewWorkers(cfg.Workers, e.work)
	return e
}

// NewClient returns a net/http client that checks every connection with
// guard (nil: none), uses no proxy and follows no redirect: the rules of
// deliveries, for callers outside the engine (the engine sends over
// fasthttp, client.go).
func NewClient(guard *Guard, timeout time.Duration) *http.Client {
	g := guard
	if g == nil {
		g = &Guard{Allow: mustPrefixes("0.0.0.0/0", "::/0")}
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.Dialer(timeout).DialContext,
		TLSHandshakeTimeout:   timeout,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Put adds an endpoint or changes its URL, secret or headers. Deliveries
// queued for it keep their place.
func (e *Engine) Put(ep Endpoint) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing.Load() {
		return
	}
	if pid := e.eps[ep.ID]; pid != nil {
		ep.Failures = e.current[ep.ID].Failures // the actor's count is the current one
		e.current[ep.ID] = ep
		e.root.Send(pid, &setEndpoint{ep: ep})
		return
	}
	e.current[ep.ID] = ep
	var opts []actor.PropsOption
	if e.cfg.Supervisor != nil {
		opts = append(opts, actor.WithGuardian(e.cfg.Supervisor))
	}
	// Spawn runs the producer here, under mu, with ep; a restart runs it on
	// the actor's goroutine, with the endpoint as it is then.
	var spawned bool
	e.eps[ep.ID] = e.root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		if !spawned {
			spawned = true
			return newEndpointActor(e, ep)
		}
		return newEndpointActor(e, e.endpoint(ep.ID))
	}, opts...))
}

// endpoint is endpoint id as a new instance of its actor starts from.
func (e *Engine) endpoint(id int64) Endpoint {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.current[id]
}

// noteFailures keeps endpoint id's consecutive-failure count for a restart
// of its actor.
func (e *Engine) noteFailures(id int64, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ep, ok := e.current[id]; ok {
		ep.Failures = n
		e.current[id] = ep
	}
}

// Remove drops an endpoint and everything queued for it.
func (e *Engine) Remove(id int64) {
	if e.forget(id, nil) {
		e.effects.dropEndpoint(id)
	}
}

// forget stops and unregisters endpoint id (only if it is still pid, when
// pid is given) and reports whether it was registered.
func (e *Engine) forget(id int64, pid *actor.PID) bool {
	e.mu.Lock()
	cur := e.eps[id]
	if cur == nil || (pid != nil && !cur.Equal(pid)) {
		e.mu.Unlock()
		return false
	}
	delete(e.eps, id)
	delete(e.current, id)
	e.mu.Unlock()
	e.root.Stop(cur)
	return true
}

// pid returns the actor of endpoint id, nil if none.
func (e *Engine) pid(id int64) *actor.PID {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.eps[id]
}

// Publish queues deliveries. It never blocks: they are written to the store
// first (write-ahead), then handed to their endpoints. Deliveries to unknown
// endpoints are dropped.
func (e *Engine) Publish(out []Outgoing) {
	if len(out) == 0 {
		return
	}
	now := e.cfg.Now().UTC()
	rows := make([]persistence.WebhookDelivery, len(out))
	var event string
	for i, o := range out {
		id := o.DeliveryID
		if id == "" {
			id = randomID()
		}
		// A product sends one body to many endpoints: decode its event
		// name once per body, not per delivery.
		if i == 0 || !sameBytes(o.Body, out[i-1].Body) {
			event = eventName(o.Body)
		}
		rows[i] = persistence.WebhookDelivery{Scope: e.cfg.Scope, EndpointID: o.EndpointID, DeliveryID: id,
			Body: o.Body, CreatedAt: now, Event: event, State: persistence.DeliveryQueued}
	}
	e.published.Add(int64(len(out)))
	e.wal.add(rows)
}

// Start reloads the deliveries still queued in the store for the endpoints
// put so far (the others' are dropped) and starts delivering. Each endpoint
// reads back at most Config.MemoryQueue of its oldest; the rest stay in the
// store and are read back as its queue drains, as after a spill.
func (e *Engine) Start(ctx context.Context) error {
	var queued []int64
	if e.cfg.Owners == nil { // on a node of a cluster, endpoints read back as they are taken (Take)
		var err error
		if queued, err = e.cfg.Queue.QueuedEndpoints(ctx, e.cfg.Scope); err != nil {
			return err
		}
	}
	var loads []reload
	var orphans []int64
	for _, id := range queued {
		if e.pid(id) == nil {
			orphans = append(orphans, id)
			continue
		}
		rows, err := e.cfg.Queue.ListEndpointDeliveries(ctx, e.cfg.Scope, id, e.cfg.MemoryQueue+1)
		if err != nil {
			return err
		}
		loads = append(loads, reload{id: id, rows: rows})
	}
	e.mu.Lock()
	if e.started {
		e.mu.Unlock()
		return errors.New("webhook engine: already started")
	}
	e.started = true
	e.mu.Unlock()
	e.pool.Start()
	e.effects.start()
	e.resume(loads, orphans)
	e.wal.start()
	return nil
}

// reload is what Start read back for one endpoint: up to MemoryQueue+1 of
// its oldest queued deliveries (one more than fits says the store holds
// more).
type reload struct {
	id   int64
	rows []persistence.WebhookDelivery
}

// resume hands reloaded deliveries to their endpoints and drops the queues
// of endpoints no longer put. An attempt that was in flight when the process
// ended did not count, and one whose outcome was not recorded is made
// again: at least once.
func (e *Engine) resume(loads []reload, orphans []int64) {
	var n, spilled int
	for _, l := range loads {
		rows := l.rows
		more := len(rows) > e.cfg.MemoryQueue
		if more {
			rows = rows[:e.cfg.MemoryQueue]
			spilled++
		}
		ds := make([]*delivery, len(rows))
		for i, r := range rows {
			r.Attempts = min(r.Attempts, e.cfg.Policy.Attempts-1)
			ds[i] = &delivery{row: r}
		}
		n += len(ds)
		if pid := e.pid(l.id); pid != nil && !e.closing.Load() {
			e.root.Send(pid, &deliver{ds: ds, spilled: more})
		}
	}
	for _, id := range orphans {
		e.effects.dropEndpoint(id)
	}
	if n > 0 || len(orphans) > 0 {
		e.cfg.Log.Info("webhook deliveries resumed", "scope", e.cfg.Scope, "loaded", n, "endpoints_with_more_stored", spilled,
			"endpoints_dropped", len(orphans))
	}
}

// route hands stored deliveries to their endpoint, or drops them when the
// endpoint is gone.
func (e *Engine) route(id int64, ds []*delivery) {
	if pid := e.pid(id); pid != nil && !e.closing.Load() {
		if o := e.cfg.Owners; o != nil && !o.Owns(e.cfg.Scope, id) {
			o.Queued(e.cfg.Scope, []int64{id}) // the owner reads them back
			return
		}
		e.root.Send(pid, &deliver{ds: ds})
		return
	}
	if e.closing.Load() {
		return // stays queued for the next start
	}
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.row.DeliveryID
	}
	e.effects.drop(ids...)
}

// ErrUnknownEndpoint: the engine does not deliver to the endpoint (never
// put, removed, or disabled).
var ErrUnknownEndpoint = errors.New("webhook: unknown endpoint")

// Redeliver queues again the finished deliveries of endpoint that f selects
// (persistence.RedeliverFilter: by id, or a time range of failed and
// dropped ones) and returns them. Each goes out under its own delivery id
// with a fresh set of attempts; the log keeps the earlier ones.
func (e *Engine) Redeliver(ctx context.Context, endpoint int64, f persistence.RedeliverFilter) ([]persistence.WebhookDelivery, error) {
	if e.pid(endpoint) == nil || e.closing.Load() {
		return nil, ErrUnknownEndpoint
	}
	rows, err := e.cfg.Queue.RequeueDeliveries(ctx, e.cfg.Scope, endpoint, f)
	if err != nil || len(rows) == 0 {
		return rows, err
	}
	ds := make([]*delivery, len(rows))
	for i := range rows {
		ds[i] = &delivery{row: rows[i]}
	}
	e.route(endpoint, ds)
	return rows, nil
}

// DeliveryLog returns up to limit deliveries of endpoint, newest first,
// with their attempts (before > 0: below that Seq). An endpoint removed or
// disabled keeps its log until retention prunes it.
func (e *Engine) DeliveryLog(ctx context.Context, endpoint int64, before int64, limit int) ([]persistence.WebhookLogEntry, error) {
	return e.cfg.Queue.DeliveryLog(ctx, e.cfg.Scope, endpoint, before, limit)
}

// sameBytes reports whether a and b are the same memory (not merely equal).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// eventName is a body's `event` member (Tweet Alerts, cw, ct), or its
// `type` (et), for the log.
func eventName(body []byte) string {
	var v struct {
		Event string `json:"event"`
		Type  string `json:"type"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	return cmp.Or(v.Event, v.Type)
}

// Stop persists what Publish accepted, abandons attempts in flight (they
// stay queued in the store), stops the endpoints and finishes the store
// writes. The engine cannot be restarted.
func (e *Engine) Stop() {
	if e.closing.Swap(true) {
		return
	}
	e.wal.stop()
	e.cancel()
	e.send.close() // attempts in flight fail at once and count as aborted
	e.pool.Stop()
	e.mu.Lock()
	pids := make([]*actor.PID, 0, len(e.eps))
	for _, p := range e.eps {
		pids = append(pids, p)
	}
	e.eps = map[int64]*actor.PID{}
	e.mu.Unlock()
	for _, p := range pids {
		_ = e.root.StopFuture(p).Wait()
	}
	e.effects.stop()
}

// Stats returns the counters.
func (e *Engine) Stats() Stats {
	s := Stats{Published: e.published.Load(), Delivered: e.delivered.Load(), Failed: e.failed.Load(),
		Retried: e.retried.Load(), Disabled: e.disabled.Load(), Spilled: e.spilled.Load()}
	e.latency.AddTo(&s.Latency)
	return s
}

// Endpoints is the number of endpoints the engine delivers to.
func (e *Engine) Endpoints() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.eps)
}

func randomID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}
