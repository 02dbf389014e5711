package edge

import (
	"errors"
	"net/url"
	"strings"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

type dtWebhookView struct {
	URL       *string `json:"url"`
	HasSecret bool    `json:"has_secret"`
}

type dtWebhookPutView struct {
	URL    string `json:"url"`
	Secret string `json:"secret"`
	Note   string `json:"note"`
}

// dtWebhookNote says what the setting does (spec 2: nothing is delivered).
const dtWebhookNote = "The URL is stored only: B2B events are delivered over the realtime WebSocket, never posted to this URL. " +
	"The secret is shown once; setting the URL again rotates it."

// maxDTWebhookURL bounds a stored URL.
const maxDTWebhookURL = 2048

// dtGetWebhook is GET /v1/dt/webhook: url is null until one is set.
func (s *Server) dtGetWebhook(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := lookupCtx()
	defer cancel()
	w, err := s.deps.Lookups.Store.DTWebhook(cctx, p.AccountID)
	if errors.Is(err, persistence.ErrNotFound) {
		return 200, dtWebhookView{}, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, dtWebhookView{URL: &w.URL, HasSecret: w.Secret != ""}, nil
}

// dtPutWebhook is PUT /v1/dt/webhook: stores url and rotates the secret,
// which this answer shows once.
func (s *Server) dtPutWebhook(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["url"]
	if !ok {
		return 0, nil, errMissingField("url")
	}
	var u string
	if json.Unmarshal(raw, &u) != nil {
		return 0, nil, protocol.BadRequest("url must be a string")
	}
	u = strings.TrimSpace(u)
	if u == "" {
		return 0, nil, protocol.BadRequest("url is required")
	}
	if !validDTWebhookURL(u) {
		return 0, nil, protocol.BadRequest("url must be an absolute http or https URL of at most 2048 bytes")
	}
	secret, err := s.deps.Lookups.Secret()
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := lookupCtx()
	defer cancel()
	if err := s.deps.Lookups.Store.PutDTWebhook(cctx, persistence.DTWebhook{AccountID: p.AccountID, URL: u, Secret: secret,
		UpdatedAt: s.now().UTC()}); err != nil {
		return 0, nil, err
	}
	return 200, dtWebhookPutView{URL: u, Secret: secret, Note: dtWebhookNote}, nil
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
