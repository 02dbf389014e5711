package edge

// What Community Watch, Convergence Tracker and Engagement Tracker share:
// the live webhook endpoints, handle bodies and limits.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// watchCtx bounds a store change made by a watch-product handler.
func watchCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// watchISO formats a time as the watch products do (ISO 8601, UTC, ms).
func watchISO(t time.Time) string { return watchlist.ISOTime(t.UnixMilli()) }

// handleLimit is a cw or ct plan's ceiling (CONTRACT.md: default 20).
func handleLimit(p *account.Principal) int {
	if p.Sub.MaxHandles > 0 {
		return p.Sub.MaxHandles
	}
	return protocol.HandlePlanSizes[0]
}

// watchHandleBody reads the `handle` of a POST body: 422 when absent, 400
// when it is not a platform handle. The handle comes back normalised.
func watchHandleBody(ctx *fasthttp.RequestCtx) (string, map[string]json.RawMessage, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return "", nil, perr
	}
	raw, ok := m["handle"]
	if !ok {
		return "", nil, errMissingField("handle")
	}
	var h string
	if json.Unmarshal(raw, &h) != nil {
		return "", nil, protocol.BadRequest("handle must be a string")
	}
	h = protocol.NormalizeHandle(h)
	if h == "" {
		return "", nil, protocol.BadRequest("handle is required")
	}
	if !protocol.ValidHandle(h) {
		return "", nil, protocol.BadRequest("handle must be 1 to 50 letters, digits or underscores")
	}
	return h, m, nil
}

// watchLimitError is 403 handle_limit_reached (spec 3: cw and ct).
func watchLimitError(segment string, have, max int) *protocol.APIError {
	return protocol.NewError(403, protocol.CodeHandleLimitReached, fmt.Sprintf("handle limit reached (%d/%d)", have, max)).
		WithHint("remove a handle with DELETE /v1/" + segment + "/targets/{handle}, or upgrade your plan")
}

// watchSocialID is the platform id of handle, if the directory knows it.
func (s *Server) watchSocialID(handle string) *string {
	if s.deps.Dir == nil {
		return nil
	}
	if e, ok := s.deps.Dir.ByHandle(handle); ok {
		id := e.User.ID
		return &id
	}
	return nil
}

// watchWebhooks is a registry's webhook side.
type watchWebhooks interface {
	Webhook(acct string) (watchlist.Webhook, bool)
	SetWebhook(ctx context.Context, acct, url, secret string) (watchlist.Webhook, error)
}

// watchWebhookView is GET /v1/{cw,ct,et}/webhook: the URL, never the secret.
type watchWebhookView struct {
	URL        *string `json:"url"`
	Configured bool    `json:"configured"`
	UpdatedAt  *string `json:"updated_at"`
}

// watchWebhookSetView is PUT's answer: the secret, shown this once.
type watchWebhookSetView struct {
	URL       string `json:"url"`
	Secret    string `json:"secret"`
	UpdatedAt string `json:"updated_at"`
}

func (s *Server) watchGetWebhook(reg watchWebhooks) Handler {
	return func(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
		w, ok := reg.Webhook(p.AccountID)
		if !ok {
			return 200, watchWebhookView{}, nil
		}
		at := watchISO(w.UpdatedAt)
		return 200, watchWebhookView{URL: &w.URL, Configured: true, UpdatedAt: &at}, nil
	}
}

// maxWatchWebhookURL bounds a webhook URL.
const maxWatchWebhookURL = 2048

// watchPutWebhook sets the account's webhook (`url` required) with a fresh
// secret: deliveries start at once, signed or carrying the new secret.
func (s *Server) watchPutWebhook(prod protocol.Product, reg watchWebhooks) Handler {
	return func(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
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
		if u = strings.TrimSpace(u); u == "" {
			return 0, nil, protocol.BadRequest("url is required")
		}
		if len(u) > maxWatchWebhookURL {
			return 0, nil, protocol.BadRequest("url is longer than 2048 characters")
		}
		cctx, cancel := watchCtx()
		defer cancel()
		norm, err := s.deps.Products.Hooks.CheckURL(cctx, u)
		if err != nil {
			return 0, nil, protocol.BadRequest("webhook url refused: " + err.Error()).
				WithHint("use a public http or https URL")
		}
		secret := newWatchSecret()
		w, err := reg.SetWebhook(cctx, p.AccountID, norm, secret)
		if err != nil {
			return 0, nil, err
		}
		s.deps.Products.Hooks.Register(prod, p.AccountID, w)
		return 200, watchWebhookSetView{URL: w.URL, Secret: w.Secret, UpdatedAt: watchISO(w.UpdatedAt)}, nil
	}
}

// newWatchSecret is a webhook secret: 64 hex characters, as spec 1's.
func newWatchSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}
