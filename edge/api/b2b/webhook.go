package b2b

import (
	"errors"
	"net/url"
	"strings"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

type webhookView struct {
	URL       *string `json:"url"`
	HasSecret bool    `json:"has_secret"`
}

type webhookPutView struct {
	URL    string `json:"url"`
	Secret string `json:"secret"`
	Note   string `json:"note"`
}

// webhookNote says what the setting does (spec 2: nothing is delivered).
const webhookNote = "The URL is stored only: B2B events are delivered over the realtime WebSocket, never posted to this URL. " +
	"The secret is shown once; setting the URL again rotates it."

// maxDTWebhookURL bounds a stored URL.
const maxDTWebhookURL = 2048

// getWebhook is GET /v1/dt/webhook: url is null until one is set.
func (a *api) getWebhook(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	w, err := a.d.Store.DTWebhook(cctx, p.AccountID)
	if errors.Is(err, persistence.ErrNotFound) {
		return 200, webhookView{}, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, webhookView{URL: &w.URL, HasSecret: w.Secret != ""}, nil
}

// putWebhook is PUT /v1/dt/webhook: stores url and rotates the secret,
// which this answer shows once.
func (a *api) putWebhook(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	u, err := httpkit.RequiredString(m, "url")
	if err != nil {
		return 0, nil, err
	}
	u = strings.TrimSpace(u)
	if u == "" {
		return 0, nil, protocol.BadRequest("url is required")
	}
	if !validDTWebhookURL(u) {
		return 0, nil, protocol.BadRequest("url must be an absolute http or https URL of at most 2048 bytes")
	}
	secret := httpkit.NewSecret()
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	if err := a.d.Store.PutDTWebhook(cctx, persistence.DTWebhook{AccountID: p.AccountID, URL: u, Secret: secret,
		UpdatedAt: a.k.Now().UTC()}); err != nil {
		return 0, nil, err
	}
	return 200, webhookPutView{URL: u, Secret: secret, Note: webhookNote}, nil
}

// validDTWebhookURL accepts absolute http and https URLs with a host.
func validDTWebhookURL(raw string) bool {
	if len(raw) > maxDTWebhookURL {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return true
	}
	return false
}
