package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/consumer"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/edge"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// sessionSecretName names the HS256 key of dashboard sessions in the store,
// so every process over one database accepts the same cookies.
const sessionSecretName = "xg_session_hs256"

// wireConsumer builds the Tweet Alerts consumer services: the registry of
// tracked lists, settings and webhooks, the webhook engine (resuming the
// deliveries left queued), the WebSocket stream, the post tap that feeds
// both, and the dashboard sessions. The stop func persists the engine's
// queue and stops it.
func wireConsumer(ctx context.Context, e *engine, cfg *Config, taps *handle.Taps, log *slog.Logger) (edge.ConsumerDeps, func(), error) {
	t := cfg.Timings
	reg := consumer.NewRegistry(e.store, time.Now)
	if err := reg.Load(ctx); err != nil {
		return edge.ConsumerDeps{}, nil, fmt.Errorf("load tracked accounts and webhooks: %w", err)
	}
	guard, err := webhook.NewGuard(cfg.WebhookAllowCIDRs)
	if err != nil {
		return edge.ConsumerDeps{}, nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return edge.ConsumerDeps{}, nil, err
	}
	if key, err = e.store.ServerSecret(ctx, sessionSecretName, key); err != nil {
		return edge.ConsumerDeps{}, nil, fmt.Errorf("session key: %w", err)
	}
	sessions, err := consumer.NewSessions(key, consumer.DefaultSessionTTL, time.Now)
	if err != nil {
		return edge.ConsumerDeps{}, nil, err
	}

	stream := consumer.NewStream(t.XGMaxPostAge, time.Now)
	hooks := webhook.New(webhook.Config{Scope: string(protocol.ProductTweetAlerts), Policy: webhook.TweetAlertsPolicy(t),
		Queue: e.store, Health: reg, Guard: guard, System: e.system, Log: log.With("webhooks", "xg")})
	reg.SetListener(consumerListener{hooks: hooks, stream: stream})
	for _, w := range reg.AllWebhooks() {
		hooks.Put(endpointOf(w))
	}
	if err := hooks.Start(ctx); err != nil {
		hooks.Stop()
		return edge.ConsumerDeps{}, nil, fmt.Errorf("webhook queue: %w", err)
	}

	limit := func(acct string) int {
		sub, ok := e.registry.Subscription(acct, protocol.ProductTweetAlerts)
		if !ok || sub.Expired(time.Now()) {
			return 0
		}
		plan, _ := protocol.FindTweetAlertsPlan(sub.Plan)
		return plan.Accounts
	}
	d := &consumer.Dispatcher{Registry: reg, Stream: stream, Webhooks: hooks, Limit: limit, Now: time.Now}
	taps.OnPost(d.OnPost)

	deps := edge.ConsumerDeps{Registry: reg, Stream: stream, Conns: consumer.NewConns(30*time.Second, time.Now),
		Guard: guard, Sessions: sessions, TelegramBotToken: cfg.TelegramBotToken}
	return deps, hooks.Stop, nil
}

func endpointOf(w persistence.Webhook) webhook.Endpoint {
	return webhook.Endpoint{ID: w.ID, URL: w.URL, Secret: w.Secret, Failures: w.ConsecutiveFailures}
}

// consumerListener applies registry changes to the engine and the stream.
type consumerListener struct {
	hooks  *webhook.Engine
	stream *consumer.Stream
}

func (l consumerListener) WebhookAdded(w persistence.Webhook) { l.hooks.Put(endpointOf(w)) }
func (l consumerListener) WebhookRemoved(id int64)            { l.hooks.Remove(id) }
func (l consumerListener) Untracked(account, h string) {
	l.stream.Untracked(string(protocol.ProductTweetAlerts)+":"+account, h)
}
