package engine

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/webhook"
	tweetalertsapi "github.com/alertd/alertd/edge/api/tweetalerts"
	"github.com/alertd/alertd/engine/cluster"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// sessionSecretName names the HS256 key of dashboard sessions in the store,
// so every process over one database accepts the same cookies.
const sessionSecretName = "xg_session_hs256"

// wireTweetAlerts builds the Tweet Alerts services: the registry of
// tracked lists, settings and webhooks, the webhook engine (resuming the
// deliveries left queued), the matcher actor that feeds it (singleton
// "tweetalerts", told every new post; it feeds no singleton), and the
// dashboard sessions. The WebSocket sessions hear the handles' topics on the
// hub. The stop func stops the matcher, then persists the engine's queue and
// stops it.
func wireTweetAlerts(ctx context.Context, e *Engine, cfg *Config, log *slog.Logger) (tweetalertsapi.Deps, func(), error) {
	t := cfg.Timings
	reg := tweetalerts.NewRegistry(e.store, time.Now)
	if err := reg.Load(ctx); err != nil {
		return tweetalertsapi.Deps{}, nil, fmt.Errorf("load tracked accounts and webhooks: %w", err)
	}
	guard, err := webhook.NewGuard(cfg.WebhookAllowCIDRs)
	if err != nil {
		return tweetalertsapi.Deps{}, nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return tweetalertsapi.Deps{}, nil, err
	}
	if key, err = e.store.ServerSecret(ctx, sessionSecretName, key); err != nil {
		return tweetalertsapi.Deps{}, nil, fmt.Errorf("session key: %w", err)
	}
	sessions, err := tweetalerts.NewSessions(key, tweetalerts.DefaultSessionTTL, time.Now)
	if err != nil {
		return tweetalertsapi.Deps{}, nil, err
	}

	hooks := webhook.New(webhook.Config{Scope: string(protocol.ProductTweetAlerts), Policy: webhook.TweetAlertsPolicy(t),
		Queue: e.store, Health: reg, Guard: guard, System: e.system, Supervisor: e.kit.Supervisor(), Log: log.With("webhooks", "xg"),
		Owners: e.webhookOwners()})
	reg.SetListener(tweetAlertsListener{hooks: hooks, lists: delivery.Lists{Hub: e.hub, Product: protocol.ProductTweetAlerts}})
	if e.feed != nil { // tracked lists, prefs, settings and webhooks changed on other nodes
		e.feed.Register(cluster.RegTweetAlerts, reg.Reload)
		reg.OnChange(func(account string) { e.feed.Changed(cluster.RegTweetAlerts, account) })
	}
	for _, w := range reg.AllWebhooks() {
		hooks.Put(endpointOf(w))
	}
	if err := hooks.Start(ctx); err != nil {
		hooks.Stop()
		return tweetalertsapi.Deps{}, nil, fmt.Errorf("webhook queue: %w", err)
	}
	e.xgHooks = hooks

	d := &tweetalerts.Dispatcher{Registry: reg, Webhooks: hooks, Limit: e.tweetAlertsLimit,
		WebhookLimit: func(acct string) int { return e.tweetAlertsPlan(acct).Webhooks }, Now: time.Now}
	matcher, err := tweetalerts.StartMatcher(ctx, e.kit, d, log.With("actor", "tweetalerts"))
	if err != nil {
		hooks.Stop()
		return tweetalertsapi.Deps{}, nil, err
	}
	e.products.tweetalerts = matcher

	deps := tweetalertsapi.Deps{Registry: reg, Targets: e.targets, Dir: e.dir, Guard: guard, Sessions: sessions,
		TelegramBotToken: cfg.TelegramBotToken, Store: e.store, Deliveries: hooks, AllowedOrigins: cfg.WSAllowedOrigins}
	return deps, func() {
		matcher.Stop() // before the engine it publishes to
		hooks.Stop()
	}, nil
}

func endpointOf(w persistence.Webhook) webhook.Endpoint {
	return webhook.Endpoint{ID: w.ID, URL: w.URL, Secret: w.Secret, Failures: w.ConsecutiveFailures}
}

// tweetAlertsListener applies registry changes to the webhook engine and
// the WebSocket sessions.
type tweetAlertsListener struct {
	hooks *webhook.Engine
	lists delivery.Lists
}

func (l tweetAlertsListener) WebhookAdded(w persistence.Webhook) { l.hooks.Put(endpointOf(w)) }
func (l tweetAlertsListener) WebhookRemoved(id int64)            { l.hooks.Remove(id) }
func (l tweetAlertsListener) Untracked(account, h string)        { l.lists.TargetRemoved(account, h) }

// tweetAlertsLimit is an account's current tracked-account limit (0 when
// its Tweet Alerts subscription is gone or expired).
func (e *Engine) tweetAlertsLimit(acct string) int { return e.tweetAlertsPlan(acct).Accounts }

// tweetAlertsPlan is acct's Tweet Alerts plan now (the zero plan when its
// subscription is gone or expired).
func (e *Engine) tweetAlertsPlan(acct string) protocol.TweetAlertsPlan {
	sub, ok := e.registry.Subscription(acct, protocol.ProductTweetAlerts)
	if !ok || sub.Expired(time.Now()) {
		return protocol.TweetAlertsPlan{}
	}
	plan, _ := protocol.FindTweetAlertsPlan(sub.Plan)
	return plan
}
