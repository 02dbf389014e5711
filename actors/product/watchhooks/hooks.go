// Package watchhooks delivers the webhooks of Community Watch, Convergence
// Tracker and Engagement Tracker through the shared delivery engine
// (actors/webhook), one engine per product with that product's policy
// (spec 3 "Authentication" 5 and "Events" rules 1 and 2):
//
//   - cw and ct: X-Signature (lowercase hex HMAC-SHA256 of the raw body,
//     keyed with the secret) and X-CW-Client-Id / X-CT-Client-Id (the
//     account id); up to 2 retries, after 1 s then 2 s, on a network error
//     or 5xx; 4xx is final; 5 s per attempt;
//   - et: the stored secret unchanged in X-Webhook-Secret; one attempt.
//
// Every delivery also carries X-Delivery-Id, the same on each attempt. An
// account's webhook is one endpoint, named by its config id; a failing
// endpoint is never disabled (spec 3 shows no such rule).
package watchhooks

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Source is a product registry's webhook side.
type Source interface {
	Webhook(acct string) (watchlist.Webhook, bool)
	Webhooks() map[string]watchlist.Webhook
}

// Policy is product p's delivery policy under timings t.
func Policy(p protocol.Product, t protocol.Timings) webhook.Policy {
	if p == protocol.ProductET {
		return webhook.Policy{Attempts: 1, Timeout: t.WebhookTimeout,
			Signature:        webhook.Signature{Kind: webhook.SignSecret, Header: "X-Webhook-Secret"},
			DeliveryIDHeader: "X-Delivery-Id"}
	}
	return webhook.Policy{Attempts: 1 + len(t.WebhookBackoff), Backoff: t.WebhookBackoff, Timeout: t.WebhookTimeout,
		Signature:        webhook.Signature{Kind: webhook.SignHMAC, Header: "X-Signature"},
		DeliveryIDHeader: "X-Delivery-Id"}
}

// ClientIDHeader is the header naming the account on p's deliveries ("":
// none).
func ClientIDHeader(p protocol.Product) string {
	switch p {
	case protocol.ProductCW:
		return "X-CW-Client-Id"
	case protocol.ProductCT:
		return "X-CT-Client-Id"
	}
	return ""
}

// Config builds Hooks.
type Config struct {
	Guard  *webhook.Guard
	Queue  webhook.Queue
	System *actor.ActorSystem
	// Supervisor supervises the endpoint actors (webhook.Config.Supervisor).
	Supervisor actor.SupervisorStrategy
	// Owners: which endpoints this node sends for (webhook.Config.Owners).
	Owners  webhook.Owners
	Timings protocol.Timings
	Sources map[protocol.Product]Source
	// Active reports whether acct's subscription to p is live; deliveries
	// to lapsed subscriptions are dropped. Nil: all are live.
	Active func(p protocol.Product, acct string) bool
	Log    *slog.Logger
}

type product struct {
	p      protocol.Product
	engine *webhook.Engine
	src    Source
	header string
	active func(p protocol.Product, acct string) bool
}

// Hooks owns the three engines.
type Hooks struct {
	guard    *webhook.Guard
	products map[protocol.Product]*product
}

// New builds one engine per source; Start starts them.
func New(cfg Config) *Hooks {
	h := &Hooks{guard: cfg.Guard, products: map[protocol.Product]*product{}}
	for p, src := range cfg.Sources {
		eng := webhook.New(webhook.Config{Scope: string(p), Policy: Policy(p, cfg.Timings), Queue: cfg.Queue,
			Guard: cfg.Guard, System: cfg.System, Supervisor: cfg.Supervisor, Log: cfg.Log, Owners: cfg.Owners})
		h.products[p] = &product{p: p, engine: eng, src: src, header: ClientIDHeader(p), active: cfg.Active}
	}
	return h
}

func (x *product) endpoint(acct string, w watchlist.Webhook) webhook.Endpoint {
	ep := webhook.Endpoint{ID: w.ID, URL: w.URL, Secret: w.Secret}
	if x.header != "" {
		ep.Headers = map[string]string{x.header: acct}
	}
	return ep
}

// Start puts every stored webhook into its engine, then starts the engines
// (which resume the deliveries still queued).
func (h *Hooks) Start(ctx context.Context) error {
	for p, x := range h.products {
		for acct, w := range x.src.Webhooks() {
			x.engine.Put(x.endpoint(acct, w))
		}
		if err := x.engine.Start(ctx); err != nil {
			return fmt.Errorf("%s webhooks: %w", p, err)
		}
	}
	return nil
}

// Stop stops the engines; what was published stays queued in the store.
func (h *Hooks) Stop() {
	for _, x := range h.products {
		x.engine.Stop()
	}
}

// CheckURL validates a webhook URL at registration.
func (h *Hooks) CheckURL(ctx context.Context, raw string) (string, error) {
	return h.guard.CheckURL(ctx, raw)
}

// Register makes p's deliveries to acct go to w from now on.
func (h *Hooks) Register(p protocol.Product, acct string, w watchlist.Webhook) {
	if x := h.products[p]; x != nil {
		x.engine.Put(x.endpoint(acct, w))
	}
}

// Sender returns what p's detector sends its webhook bodies to.
func (h *Hooks) Sender(p protocol.Product) *Sender { return &Sender{x: h.products[p]} }

// Engine is p's webhook engine (its delivery log and redelivery); nil for
// a product without one.
func (h *Hooks) Engine(p protocol.Product) *webhook.Engine {
	if x := h.products[p]; x != nil {
		return x.engine
	}
	return nil
}

// Stats returns p's engine counters.
func (h *Hooks) Stats(p protocol.Product) webhook.Stats {
	if x := h.products[p]; x != nil {
		return x.engine.Stats()
	}
	return webhook.Stats{}
}

// Sender queues one product's deliveries.
type Sender struct{ x *product }

// Send queues body for acct's webhook, if it has one and its subscription
// is live; it never blocks.
func (s *Sender) Send(acct string, body []byte) {
	if s.x == nil || (s.x.active != nil && !s.x.active(s.x.p, acct)) {
		return
	}
	w, ok := s.x.src.Webhook(acct)
	if !ok {
		return
	}
	s.x.engine.Publish([]webhook.Outgoing{{EndpointID: w.ID, Body: body}})
}
