// Package tweetalerts serves Tweet Alerts' API under /v1
// (spec/1-conventions-and-tweet-alerts.md, "Endpoints"): the
// subscription and plans, the tracked accounts with their keywords, mute
// and filters, the notification settings, the signed webhooks, the feed,
// the web dashboard's sessions (API key and Telegram sign-in, the
// xg_session cookie) and the /v1/ws socket. A dt_ key uses the same routes
// on its B2B target list. Matching and delivery live in
// actors/product/tweetalerts and the socket's session in actors/session.
package tweetalerts

import (
	"context"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Deps are what Tweet Alerts' routes use.
type Deps struct {
	// Registry holds tracked lists, prefs, settings and webhooks; nil
	// leaves every route but /v1/subscription and /v1/plans out.
	Registry *tweetalerts.Registry
	// Targets are the B2B target lists, which a dt_ key's accounts are.
	Targets *targets.Registry
	// Dir knows the platform users (eligibility, suspension, profiles).
	Dir *directory.Directory
	// Guard checks webhook URLs at registration.
	Guard *webhook.Guard
	// Sessions issues and checks the web-dashboard session cookie.
	Sessions *tweetalerts.Sessions
	// AllowedOrigins are origins besides the server's own from which /v1/ws
	// may be opened with the session cookie.
	AllowedOrigins []string
	// TelegramBotToken verifies Telegram logins; empty refuses them.
	TelegramBotToken string
	// Store reads the feed and keeps Telegram links.
	Store Store
	// Deliveries is the webhooks' delivery log (the Tweet Alerts webhook
	// engine); nil leaves GET /v1/webhooks/{id}/deliveries out.
	Deliveries DeliveryLog
}

// DeliveryLog reads a webhook's deliveries, newest first (*webhook.Engine).
type DeliveryLog interface {
	DeliveryLog(ctx context.Context, endpoint int64, before int64, limit int) ([]persistence.WebhookLogEntry, error)
}

// Store is what the routes use of the store.
type Store interface {
	FeedPosts(ctx context.Context, handles []string, before time.Time, limit int) ([]persistence.Post, error)
	LinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product, at time.Time) error
	TelegramLinkOf(ctx context.Context, telegramID int64) (persistence.TelegramLinkInfo, error)
	TelegramLinks(ctx context.Context, account string, product protocol.Product) ([]persistence.TelegramLinkInfo, error)
	UnlinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product) error
}

type api struct {
	k       *httpkit.Kit
	d       Deps
	revoked revokedLinks // Telegram links removed, for the sockets opened through them
}

// Routes are Tweet Alerts' routes.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	a := &api{k: k, d: d}
	f := httpkit.FamilyTweetAlerts
	routes := []httpkit.Route{
		httpkit.GET("/v1/subscription", a.sessionOrKey(f, a.getSubscription)),
		httpkit.GET("/v1/plans", a.sessionOrKey(f, a.getPlans)),
	}
	if d.Registry == nil {
		return routes
	}
	routes = append(routes,
		httpkit.GET("/v1/accounts", a.sessionOrKey(f, a.listAccounts)),
		httpkit.POST("/v1/accounts", a.sessionOrKey(f, a.addAccounts)),
		httpkit.GET("/v1/accounts/{handle}", a.sessionOrKey(f, a.accountDetail)),
		httpkit.DELETE("/v1/accounts/{handle}", a.sessionOrKey(f, a.removeAccount)),
		httpkit.PUT("/v1/accounts/{handle}/keywords", a.sessionOrKey(f, a.putKeywords)),
		httpkit.DELETE("/v1/accounts/{handle}/keywords", a.sessionOrKey(f, a.clearKeywords)),
		httpkit.PUT("/v1/accounts/{handle}/mute", a.sessionOrKey(f, a.putMute)),
		httpkit.PATCH("/v1/accounts/{handle}/filters", a.sessionOrKey(f, a.patchFilters)),
		httpkit.GET("/v1/settings", a.sessionOrKey(f, a.getSettings)),
		httpkit.PATCH("/v1/settings", a.sessionOrKey(f, a.patchSettings)),
		httpkit.GET("/v1/webhooks", a.sessionOrKey(f, a.listWebhooks)),
		httpkit.POST("/v1/webhooks", a.sessionOrKey(f, a.createWebhook)),
		httpkit.DELETE("/v1/webhooks/{id}", a.sessionOrKey(f, a.deleteWebhook)),
		httpkit.GET("/v1/webhooks/{id}/deliveries", a.sessionOrKey(f, a.webhookDeliveries)),
		httpkit.GET("/v1/feed", a.sessionOrKey(f, a.feed)),
		httpkit.POST("/v1/auth/apikey", a.authAPIKey),
		httpkit.POST("/v1/auth/telegram", a.authTelegram),
		httpkit.GET("/v1/auth/telegram/links", a.sessionOrKey(f, a.listTelegramLinks)),
		httpkit.DELETE("/v1/auth/telegram/links/{telegram_id}", a.sessionOrKey(f, a.unlinkTelegram)),
		httpkit.GET("/v1/auth/session", a.authSession),
		httpkit.POST("/v1/auth/logout", a.authLogout),
	)
	if k.HasSockets() {
		routes = append(routes, httpkit.GET("/v1/ws", a.socket))
	}
	return routes
}
