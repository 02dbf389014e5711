package edge

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// pfRoutes are the PumpFun routes under /v1/pf (spec 3).
func (s *Server) pfRoutes(r *router.Router) {
	f := ProductFamily(protocol.ProductPumpFun)
	r.GET("/v1/pf/targets", s.wrap(f, s.pfTargets))
	r.POST("/v1/pf/targets", s.wrap(f, s.pfAddTarget))
	r.DELETE("/v1/pf/targets/{wallet}", s.wrap(f, s.pfRemoveTarget))
	r.GET("/v1/pf/events", s.wrap(f, s.pfEvents))
	r.GET("/v1/pf/status", s.wrap(f, s.pfStatus))
	s.storedWebhookRoutes(r, "pf", protocol.ProductPumpFun)
	if s.ws != nil {
		// /v1/pf/ws: wallet events of the wallets, and callouts of the
		// callers, on the account's list when the socket connects.
		r.GET("/v1/pf/ws", s.productSocket(protocol.ProductPumpFun, walletScope(s.deps.Products2.PumpFun.Targets.Masks)))
	}
}

type pfTargetView struct {
	WalletAddress string    `json:"wallet_address"`
	Label         string    `json:"label"`
	AlertTypes    []string  `json:"alert_types"`
	CreatedAt     time.Time `json:"created_at"`
}

func pfTarget(t persistence.PFTarget) pfTargetView {
	return pfTargetView{WalletAddress: t.Wallet, Label: t.Label, AlertTypes: t.AlertTypes, CreatedAt: t.CreatedAt}
}

type pfTargetsView struct {
	Targets    []pfTargetView `json:"targets"`
	Count      int            `json:"count"`
	MaxWallets int            `json:"max_wallets"`
}

// pfTargets is GET /v1/pf/targets: the watched wallets and callers.
func (s *Server) pfTargets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := s.deps.Products2.PumpFun.Targets.List(p.AccountID)
	v := pfTargetsView{Targets: make([]pfTargetView, 0, len(list)), Count: len(list), MaxWallets: p.Sub.MaxWallets}
	for _, t := range list {
		v.Targets = append(v.Targets, pfTarget(t))
	}
	return 200, v, nil
}

// pfAddTarget is POST /v1/pf/targets: `wallet_address` (required), `label`
// and `alert_types` (default livestream, token_launch and graduation; a
// target with callouts is a caller). Each alert type holds at most the
// plan's max_wallets targets.
func (s *Server) pfAddTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["wallet_address"]
	if !ok {
		return 0, nil, errMissingField("wallet_address")
	}
	var wallet string
	if json.Unmarshal(raw, &wallet) != nil {
		return 0, nil, protocol.BadRequest("wallet_address must be a string")
	}
	if !protocol.IsSolanaAddress(wallet) {
		return 0, nil, protocol.BadRequest("wallet_address must be a Solana address (32 to 44 base58 characters)")
	}
	var label string
	if raw, ok := m["label"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &label) != nil {
			return 0, nil, protocol.BadRequest("label must be a string")
		}
		if utf8.RuneCountInString(label) > pumpfun.MaxLabel {
			return 0, nil, protocol.BadRequest(fmt.Sprintf("label is longer than %d characters", pumpfun.MaxLabel))
		}
	}
	var types []string
	if raw, ok := m["alert_types"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &types) != nil || types == nil {
			return 0, nil, protocol.BadRequest("alert_types must be an array of alert types")
		}
	}
	types, err := pumpfun.ParseAlertTypes(types)
	if err != nil {
		return 0, nil, protocol.BadRequest(err.Error())
	}
	t := persistence.PFTarget{AccountID: p.AccountID, Wallet: wallet, Label: label, AlertTypes: types,
		CreatedAt: s.now().UTC().Truncate(time.Millisecond)}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var le *pumpfun.LimitError
	switch err := s.deps.Products2.PumpFun.Targets.Add(cctx, t, p.Sub.MaxWallets); {
	case errors.Is(err, persistence.ErrExists):
		return 0, nil, protocol.Conflict("wallet already on your list").
			WithHint("to change its label or alert types, DELETE /v1/pf/targets/{wallet} and add it again")
	case errors.As(err, &le):
		return 0, nil, protocol.Forbidden(fmt.Sprintf("plan limit reached for %s: %d of %d", le.AlertType, le.Used, le.Limit)).
			WithHint("remove a wallet with DELETE /v1/pf/targets/{wallet}, or upgrade your plan")
	case err != nil:
		return 0, nil, err
	}
	return 201, pfTarget(t), nil
}

// pfRemoveTarget is DELETE /v1/pf/targets/{wallet}.
func (s *Server) pfRemoveTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	wallet := pathValue(ctx, "wallet")
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.deps.Products2.PumpFun.Targets.Remove(cctx, p.AccountID, wallet)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("wallet not on your list")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]string{"removed": wallet}, nil
}

// pfEventView is spec 3's wallet event record, detected_at in ISO 8601.
type pfEventView struct {
	WalletAddress     string `json:"wallet_address"`
	Mint              string `json:"mint"`
	TokenName         string `json:"token_name"`
	TokenSymbol       string `json:"token_symbol"`
	EventType         string `json:"event_type"`
	DetectedAt        string `json:"detected_at"`
	DeliveryLatencyMS int64  `json:"delivery_latency_ms"`
}

type pfEventsView struct {
	Events []pfEventView `json:"events"`
	Count  int           `json:"count"`
}

// pfEvents is GET /v1/pf/events: the last 50 wallet events of the account's
// watched wallets, newest first; callouts are not included.
func (s *Server) pfEvents(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := s.deps.Products2.PumpFun.Events(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	v := pfEventsView{Events: make([]pfEventView, 0, len(list)), Count: len(list)}
	for _, e := range list {
		v.Events = append(v.Events, pfEventView{WalletAddress: e.Wallet, Mint: e.Mint, TokenName: e.TokenName,
			TokenSymbol: e.TokenSymbol, EventType: e.EventType, DetectedAt: e.DetectedAt.UTC().Format(isoMillis),
			DeliveryLatencyMS: e.DeliveryLatencyMS})
	}
	return 200, v, nil
}

// isoMillis is ISO 8601 in UTC with milliseconds.
const isoMillis = "2006-01-02T15:04:05.000Z07:00"

type pfAlertTypeUse struct {
	Used int `json:"used"`
	Max  int `json:"max"`
}

type pfStatusView struct {
	subscriptionStatus
	MaxWallets int                       `json:"max_wallets"`
	Wallets    int                       `json:"wallets"`
	AlertTypes map[string]pfAlertTypeUse `json:"alert_types"`
}

// pfStatus is GET /v1/pf/status: the plan and each alert type's use.
func (s *Server) pfStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	reg := s.deps.Products2.PumpFun.Targets
	v := pfStatusView{subscriptionStatus: statusOf(p), MaxWallets: p.Sub.MaxWallets, Wallets: len(reg.List(p.AccountID)),
		AlertTypes: map[string]pfAlertTypeUse{}}
	for a, n := range reg.Counts(p.AccountID) {
		v.AlertTypes[a] = pfAlertTypeUse{Used: n, Max: p.Sub.MaxWallets}
	}
	return 200, v, nil
}
