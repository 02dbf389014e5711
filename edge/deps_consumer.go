package edge

import (
	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/fasthttp/router"
)

// ConsumerDeps are the services the consumer routes use (wired in cmd/alertd).
type ConsumerDeps struct {
	// Registry holds tracked lists, prefs, settings and webhooks; nil
	// leaves the consumer feature routes unregistered.
	Registry *tweetalerts.Registry
	// Guard checks webhook URLs at registration.
	Guard *webhook.Guard
	// Sessions issues and checks the web-dashboard session cookie.
	Sessions *tweetalerts.Sessions
	// TelegramBotToken verifies Telegram logins; empty refuses them.
	TelegramBotToken string
}

// consumerFeatureRoutes registers the consumer routes.
func (s *Server) consumerFeatureRoutes(r *router.Router) {
	if s.deps.Consumer.Registry == nil {
		return
	}
	f := FamilyTweetAlerts
	r.GET("/v1/accounts", s.wrap(f, s.listAccounts))
	r.POST("/v1/accounts", s.wrap(f, s.addAccounts))
	r.GET("/v1/accounts/{handle}", s.wrap(f, s.accountDetail))
	r.DELETE("/v1/accounts/{handle}", s.wrap(f, s.removeAccount))
	r.PUT("/v1/accounts/{handle}/keywords", s.wrap(f, s.putKeywords))
	r.DELETE("/v1/accounts/{handle}/keywords", s.wrap(f, s.clearKeywords))
	r.PUT("/v1/accounts/{handle}/mute", s.wrap(f, s.putMute))
	r.PATCH("/v1/accounts/{handle}/filters", s.wrap(f, s.patchFilters))
	r.GET("/v1/settings", s.wrap(f, s.getSettings))
	r.PATCH("/v1/settings", s.wrap(f, s.patchSettings))
	r.GET("/v1/webhooks", s.wrap(f, s.listWebhooks))
	r.POST("/v1/webhooks", s.wrap(f, s.createWebhook))
	r.DELETE("/v1/webhooks/{id}", s.wrap(f, s.deleteWebhook))
	r.GET("/v1/feed", s.sessionOrKey(f, s.feed))
	r.POST("/v1/auth/apikey", s.authAPIKey)
	r.POST("/v1/auth/telegram", s.authTelegram)
	if s.ws != nil {
		r.GET("/v1/ws", s.tweetAlertsSocket)
	}
}
