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

// consumerFeatureRoutes registers the consumer routes. Each takes a key or
// the dashboard's session cookie.
func (s *Server) consumerFeatureRoutes(r *router.Router) {
	if s.deps.Consumer.Registry == nil {
		return
	}
	f := FamilyTweetAlerts
	r.GET("/v1/accounts", s.sessionOrKey(f, s.listAccounts))
	r.POST("/v1/accounts", s.sessionOrKey(f, s.addAccounts))
	r.GET("/v1/accounts/{handle}", s.sessionOrKey(f, s.accountDetail))
	r.DELETE("/v1/accounts/{handle}", s.sessionOrKey(f, s.removeAccount))
	r.PUT("/v1/accounts/{handle}/keywords", s.sessionOrKey(f, s.putKeywords))
	r.DELETE("/v1/accounts/{handle}/keywords", s.sessionOrKey(f, s.clearKeywords))
	r.PUT("/v1/accounts/{handle}/mute", s.sessionOrKey(f, s.putMute))
	r.PATCH("/v1/accounts/{handle}/filters", s.sessionOrKey(f, s.patchFilters))
	r.GET("/v1/settings", s.sessionOrKey(f, s.getSettings))
	r.PATCH("/v1/settings", s.sessionOrKey(f, s.patchSettings))
	r.GET("/v1/webhooks", s.sessionOrKey(f, s.listWebhooks))
	r.POST("/v1/webhooks", s.sessionOrKey(f, s.createWebhook))
	r.DELETE("/v1/webhooks/{id}", s.sessionOrKey(f, s.deleteWebhook))
	r.GET("/v1/feed", s.sessionOrKey(f, s.feed))
	r.POST("/v1/auth/apikey", s.authAPIKey)
	r.POST("/v1/auth/telegram", s.authTelegram)
	r.GET("/v1/auth/session", s.authSession)
	r.POST("/v1/auth/logout", s.authLogout)
	if s.ws != nil {
		r.GET("/v1/ws", s.tweetAlertsSocket)
	}
}
