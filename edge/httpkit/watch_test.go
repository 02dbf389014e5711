package httpkit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// hooks is a webhook registry and delivery in one: it keeps one webhook per
// account and remembers what was registered for delivery.
type hooks struct {
	e          *httpkittest.Env
	saved      map[string]watchlist.Webhook
	registered []string
}

func (h *hooks) Webhook(acct string) (watchlist.Webhook, bool) {
	w, ok := h.saved[acct]
	return w, ok
}

func (h *hooks) SetWebhook(_ context.Context, acct, url, secret string) (watchlist.Webhook, error) {
	w := watchlist.Webhook{ID: 1, URL: url, Secret: secret, UpdatedAt: h.e.Clock.Now()}
	h.saved[acct] = w
	return w, nil
}

func (h *hooks) CheckURL(_ context.Context, raw string) (string, error) {
	if strings.Contains(raw, "127.0.0.1") {
		return "", errors.New("loopback address")
	}
	return raw, nil
}

func (h *hooks) Register(p protocol.Product, acct string, w watchlist.Webhook) {
	h.registered = append(h.registered, string(p)+" "+acct+" "+w.URL)
}

// TestWatchWebhookRoutes: PUT checks the URL, stores it with a fresh secret
// shown once, and registers it for delivery; GET never shows the secret.
func TestWatchWebhookRoutes(t *testing.T) {
	e := httpkittest.New(t, nil)
	hk := &hooks{e: e, saved: map[string]watchlist.Webhook{}}
	h := httpkittest.Router(e.Kit.WatchWebhookRoutes(protocol.ProductET, hk, hk))
	iss := e.IssueSub(t, "", protocol.ProductET, account.Changes{})
	key := httpkittest.Bearer(iss.Key)
	do := func(method, body string) (int, string) {
		r := httpkittest.Do(h, httpkittest.Request{Method: method, URI: "/v1/et/webhook", Headers: key, Body: body})
		return r.StatusCode(), string(r.Body())
	}
	for _, c := range []struct {
		method, body string
		status       int
		has          string
	}{
		{"GET", "", 200, `{"url":null,"configured":false,"updated_at":null}`},
		{"PUT", `{"url":"  "}`, 400, "url is required"},
		{"PUT", `{"url":"http://127.0.0.1/x"}`, 400, "webhook url refused: loopback address"},
		{"PUT", `{"url":" https://hooks.example/et "}`, 200, `"url":"https://hooks.example/et","secret":"`},
		{"GET", "", 200, `{"url":"https://hooks.example/et","configured":true,"updated_at":"2026-05-10T23:59:00.000Z"}`},
	} {
		if status, body := do(c.method, c.body); status != c.status || !strings.Contains(body, c.has) {
			t.Errorf("%s %s: %d %s", c.method, c.body, status, body)
		}
	}
	if len(hk.registered) != 1 || hk.registered[0] != "et "+iss.Sub.AccountID+" https://hooks.example/et" || len(hk.saved[iss.Sub.AccountID].Secret) != 64 {
		t.Errorf("registered %v, saved %+v", hk.registered, hk.saved)
	}
}

func TestHandleLimit(t *testing.T) {
	p := &account.Principal{Sub: &persistence.Subscription{}}
	if httpkit.HandleLimit(p) != protocol.HandlePlanSizes[0] {
		t.Errorf("default limit %d", httpkit.HandleLimit(p))
	}
	p.Sub.MaxHandles = 50
	if httpkit.HandleLimit(p) != 50 {
		t.Errorf("plan limit %d", httpkit.HandleLimit(p))
	}
	if e := httpkit.HandleLimitError("cw", 20, 20); e.Status != 403 || e.Code != protocol.CodeHandleLimitReached ||
		!strings.Contains(e.Hint, "DELETE /v1/cw/targets/{handle}") {
		t.Errorf("%+v", e)
	}
}
