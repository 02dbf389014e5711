// Package console is the operator console's JSON API under /admin/v1 (the
// page itself is served by edge/api/pages): the engine's live numbers
// (GET /admin/v1/stats: connections per socket kind, ingest and delivery
// totals and per-second rates over the last ten minutes, webhook queues and
// failing endpoints, the store) and the accounts with their subscriptions
// and keys (GET /admin/v1/accounts, and revoking one key by its id). Keys
// are issued and plans changed through the admin API of CONTRACT.md
// section 2, which the console page calls directly.
//
// It owns the Sampler (one goroutine, started and stopped by the engine)
// and nothing else; every number is read from its owner through Deps at
// request time. Every route needs the admin bearer (Deps.Guard).
package console

import (
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Store is what the console reads of the store.
type Store interface {
	Kind() string
	ListKeys(ctx context.Context) ([]persistence.APIKey, error)
	ListSubscriptions(ctx context.Context) ([]persistence.Subscription, error)
}

// sizer is a store that can say how much room it takes (both of ours can).
type sizer interface {
	Size(ctx context.Context) (int64, error)
}

// Keys turns a key off by its hash: the console knows keys by id only.
type Keys interface {
	DeactivateHash(ctx context.Context, h account.KeyHash) error
}

// WebhookQueue is one product's webhook engine.
type WebhookQueue struct {
	Product   protocol.Product
	Stats     func() webhook.Stats
	Endpoints func() int // nil when the engine does not count them per product
}

// FailingEndpoint is a webhook whose last deliveries failed.
type FailingEndpoint struct {
	Product             protocol.Product `json:"product"`
	ID                  int64            `json:"id"`
	AccountID           string           `json:"account_id"`
	URL                 string           `json:"url"` // without its query, which may hold a token
	ConsecutiveFailures int              `json:"consecutive_failures"`
}

// Deps are what the console reads; each comes from its owner.
type Deps struct {
	Store Store
	Keys  Keys
	// Sockets is the number of open sockets per kind (realtime, tweet_only,
	// xg, product); Closes calls f for every kind and close reason seen.
	Sockets func() map[string]int64
	Closes  func(f func(kind, reason string, n uint64))
	// Backlog is the number of observations routed but not yet handled.
	Backlog  func() int64
	Webhooks []WebhookQueue
	// Failing lists the webhook endpoints with consecutive failures.
	Failing func() []FailingEndpoint
	Sampler *Sampler
	// Chat reads the chat bot's outbox (nil or ok false: no bot).
	Chat func() (ChatQueue, bool)
	Now  func() time.Time
	Log  *slog.Logger
}

// ChatQueue is the chat bot's outbox: messages waiting, the chats linked
// and blocked, and send outcomes since start.
type ChatQueue struct {
	Queued      int64 `json:"queued"`
	Chats       int   `json:"chats"`
	Sent        int64 `json:"sent"`
	Failed      int64 `json:"failed"`
	RateLimited int64 `json:"rate_limited"`
	Retried     int64 `json:"retried"`
	Blocked     int64 `json:"blocked"`
	Digests     int64 `json:"digests"`
}

// API serves the console's routes.
type API struct{ d Deps }

// New returns the console API over d.
func New(d Deps) *API {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &API{d: d}
}

// Routes are the console's routes, each behind the admin bearer; none when
// a is nil (the console is not wired).
func Routes(k *httpkit.Kit, a *API) []httpkit.Route {
	if a == nil {
		return nil
	}
	return []httpkit.Route{
		httpkit.GET("/admin/v1/stats", k.Admin(a.stats)),
		httpkit.GET("/admin/v1/accounts", k.Admin(a.accounts)),
		httpkit.DELETE("/admin/v1/accounts/{account_id}/keys/{key_id}", k.Admin(a.revoke)),
	}
}

type statsView struct {
	Time        time.Time          `json:"time"`
	Store       storeView          `json:"store"`
	Connections connectionsView    `json:"connections"`
	Closes      []closeView        `json:"closes"`
	Ingest      ingestView         `json:"ingest"`
	Deliveries  deliveriesView     `json:"deliveries"`
	Webhooks    []webhookQueueView `json:"webhooks"`
	Failing     []FailingEndpoint  `json:"failing_endpoints"`
	// Chat is the chat bot's outbox; null when no bot runs. Not there yet:
	// per-webhook delivery logs and cluster members; null until then.
	Chat        *ChatQueue `json:"chat"`
	DeliveryLog *struct{}  `json:"delivery_log"`
	Cluster     *struct{}  `json:"cluster"`
	Rates       ratesView  `json:"rates"`
}

type storeView struct {
	Kind      string `json:"kind"`
	SizeBytes *int64 `json:"size_bytes"` // null when the store cannot say
}

type connectionsView struct {
	Total  int64            `json:"total"`
	ByKind map[string]int64 `json:"by_kind"`
}

type closeView struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Count  uint64 `json:"count"`
}

type ingestView struct {
	Accepted uint64 `json:"accepted"`
	Rejected uint64 `json:"rejected"`
	Backlog  int64  `json:"backlog"`
}

type deliveriesView struct {
	Frames            uint64 `json:"frames"`
	WebhooksDelivered uint64 `json:"webhooks_delivered"`
	WebhooksFailed    uint64 `json:"webhooks_failed"`
}

type webhookQueueView struct {
	Product   protocol.Product `json:"product"`
	Endpoints *int             `json:"endpoints"`
	Published int64            `json:"published"`
	Delivered int64            `json:"delivered"`
	Failed    int64            `json:"failed"`
	Retried   int64            `json:"retried"`
	Disabled  int64            `json:"disabled"`
}

type ratesView struct {
	IntervalMS int64  `json:"interval_ms"`
	Samples    []Rate `json:"samples"`
}

func (a *API) stats(ctx *fasthttp.RequestCtx) {
	d := a.d
	v := statsView{Time: d.Now().UTC(), Store: storeView{Kind: d.Store.Kind()},
		Connections: connectionsView{ByKind: d.Sockets()}, Closes: []closeView{}, Webhooks: []webhookQueueView{},
		Failing: d.Failing(), Rates: ratesView{IntervalMS: 1000, Samples: d.Sampler.Rates()}}
	if d.Chat != nil {
		if q, ok := d.Chat(); ok {
			v.Chat = &q
		}
	}
	if sz, ok := d.Store.(sizer); ok {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		n, err := sz.Size(cctx)
		cancel()
		if err == nil {
			v.Store.SizeBytes = &n
		} else {
			d.Log.Warn("console: store size", "err", err)
		}
	}
	for _, n := range v.Connections.ByKind {
		v.Connections.Total += n
	}
	d.Closes(func(kind, reason string, n uint64) {
		v.Closes = append(v.Closes, closeView{Kind: kind, Reason: reason, Count: n})
	})
	t := d.Sampler.Totals()
	v.Ingest = ingestView{Accepted: t.IngestAccepted, Rejected: t.IngestRejected, Backlog: d.Backlog()}
	v.Deliveries = deliveriesView{Frames: t.Frames, WebhooksDelivered: t.WebhooksDelivered, WebhooksFailed: t.WebhooksFailed}
	for _, q := range d.Webhooks {
		s := q.Stats()
		qv := webhookQueueView{Product: q.Product, Published: s.Published, Delivered: s.Delivered, Failed: s.Failed,
			Retried: s.Retried, Disabled: s.Disabled}
		if q.Endpoints != nil {
			n := q.Endpoints()
			qv.Endpoints = &n
		}
		v.Webhooks = append(v.Webhooks, qv)
	}
	if v.Failing == nil {
		v.Failing = []FailingEndpoint{}
	}
	noStore(ctx)
	httpkit.WriteOK(ctx, 200, v)
}

// revoke is DELETE /admin/v1/accounts/{account_id}/keys/{key_id}: the key
// turns off for good (key_deactivated), as DELETE /admin/v1/keys/{key}
// does for an operator who still holds the key in clear.
func (a *API) revoke(ctx *fasthttp.RequestCtx) {
	acct, id := httpkit.PathValue(ctx, "account_id"), httpkit.PathValue(ctx, "key_id")
	var h account.KeyHash
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != len(h) {
		httpkit.WriteError(ctx, protocol.BadRequest("key_id must be the 64 hex characters of a key's SHA-256"))
		return
	}
	copy(h[:], raw)
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	keys, err := a.d.Store.ListKeys(cctx)
	if err != nil {
		a.fail(ctx, err)
		return
	}
	found := false
	for _, k := range keys {
		if k.AccountID == acct && hex.EncodeToString(k.Hash) == id {
			found = true
			break
		}
	}
	if !found {
		httpkit.WriteError(ctx, protocol.NotFound("no such key for this account"))
		return
	}
	if err := a.d.Keys.DeactivateHash(cctx, h); err != nil {
		if errors.Is(err, persistence.ErrNotFound) {
			httpkit.WriteError(ctx, protocol.NewError(409, protocol.CodeConflict, "key already replaced by a newer one"))
			return
		}
		a.fail(ctx, err)
		return
	}
	a.d.Log.Info("key deactivated from the console", "account_id", acct)
	noStore(ctx)
	httpkit.WriteOK(ctx, 200, map[string]bool{"deactivated": true})
}

func (a *API) fail(ctx *fasthttp.RequestCtx, err error) {
	a.d.Log.Error("console request failed", "path", string(ctx.Path()), "err", err)
	httpkit.WriteError(ctx, protocol.Internal())
}

// noStore keeps the console's answers (accounts, keys) out of caches.
func noStore(ctx *fasthttp.RequestCtx) { ctx.Response.Header.Set("Cache-Control", "no-store") }
