package pumpfun

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

type targetView struct {
	WalletAddress string    `json:"wallet_address"`
	Label         string    `json:"label"`
	AlertTypes    []string  `json:"alert_types"`
	CreatedAt     time.Time `json:"created_at"`
}

func target(t persistence.PFTarget) targetView {
	return targetView{WalletAddress: t.Wallet, Label: t.Label, AlertTypes: t.AlertTypes, CreatedAt: t.CreatedAt}
}

type targetsView struct {
	Targets    []targetView `json:"targets"`
	Count      int          `json:"count"`
	MaxWallets int          `json:"max_wallets"`
}

// targets is GET /v1/pf/targets: the watched wallets and callers.
func (a *api) targets(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := a.d.Service.Targets.List(p.AccountID)
	v := targetsView{Targets: make([]targetView, 0, len(list)), Count: len(list), MaxWallets: p.Sub.MaxWallets}
	for _, t := range list {
		v.Targets = append(v.Targets, target(t))
	}
	return 200, v, nil
}

// addTarget is POST /v1/pf/targets: `wallet_address` (required), `label`
// and `alert_types` (default livestream, token_launch and graduation; a
// target with callouts is a caller). Each alert type holds at most the
// plan's max_wallets targets.
func (a *api) addTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	wallet, err := httpkit.RequiredString(m, "wallet_address")
	if err != nil {
		return 0, nil, err
	}
	if !protocol.IsSolanaAddress(wallet) {
		return 0, nil, protocol.BadRequest("wallet_address must be a Solana address (32 to 44 base58 characters)")
	}
	var label string
	if raw, ok := m["label"]; ok && !httpkit.IsNull(raw) {
		if json.Unmarshal(raw, &label) != nil {
			return 0, nil, protocol.BadRequest("label must be a string")
		}
		if utf8.RuneCountInString(label) > pumpfun.MaxLabel {
			return 0, nil, protocol.BadRequest(fmt.Sprintf("label is longer than %d characters", pumpfun.MaxLabel))
		}
	}
	var types []string
	if raw, ok := m["alert_types"]; ok && !httpkit.IsNull(raw) {
		if json.Unmarshal(raw, &types) != nil || types == nil {
			return 0, nil, protocol.BadRequest("alert_types must be an array of alert types")
		}
	}
	types, err = pumpfun.ParseAlertTypes(types)
	if err != nil {
		return 0, nil, protocol.BadRequest(err.Error())
	}
	t := persistence.PFTarget{AccountID: p.AccountID, Wallet: wallet, Label: label, AlertTypes: types,
		CreatedAt: a.k.Now().UTC().Truncate(time.Millisecond)}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	var le *pumpfun.LimitError
	switch err := a.d.Service.Targets.Add(cctx, t, p.Sub.MaxWallets); {
	case errors.Is(err, persistence.ErrExists):
		return 0, nil, protocol.Conflict("wallet already on your list").
			WithHint("to change its label or alert types, DELETE /v1/pf/targets/{wallet} and add it again")
	case errors.As(err, &le):
		return 0, nil, protocol.Forbidden(fmt.Sprintf("plan limit reached for %s: %d of %d", le.AlertType, le.Used, le.Limit)).
			WithHint("remove a wallet with DELETE /v1/pf/targets/{wallet}, or upgrade your plan")
	case err != nil:
		return 0, nil, err
	}
	return 201, target(t), nil
}

// removeTarget is DELETE /v1/pf/targets/{wallet}.
func (a *api) removeTarget(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	wallet := httpkit.PathValue(ctx, "wallet")
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err := a.d.Service.Targets.Remove(cctx, p.AccountID, wallet)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("wallet not on your list")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]string{"removed": wallet}, nil
}

// eventView is spec 3's wallet event record, detected_at in ISO 8601.
type eventView struct {
	WalletAddress     string `json:"wallet_address"`
	Mint              string `json:"mint"`
	TokenName         string `json:"token_name"`
	TokenSymbol       string `json:"token_symbol"`
	EventType         string `json:"event_type"`
	DetectedAt        string `json:"detected_at"`
	DeliveryLatencyMS int64  `json:"delivery_latency_ms"`
}

type eventsView struct {
	Events []eventView `json:"events"`
	Count  int         `json:"count"`
}

// events is GET /v1/pf/events: the last 50 wallet events of the account's
// watched wallets, newest first; callouts are not included.
func (a *api) events(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	list, err := a.d.Service.Events(cctx, p.AccountID)
	if err != nil {
		return 0, nil, err
	}
	v := eventsView{Events: make([]eventView, 0, len(list)), Count: len(list)}
	for _, e := range list {
		v.Events = append(v.Events, eventView{WalletAddress: e.Wallet, Mint: e.Mint, TokenName: e.TokenName,
			TokenSymbol: e.TokenSymbol, EventType: e.EventType, DetectedAt: e.DetectedAt.UTC().Format(httpkit.ISOMillis),
			DeliveryLatencyMS: e.DeliveryLatencyMS})
	}
	return 200, v, nil
}

type alertTypeUse struct {
	Used int `json:"used"`
	Max  int `json:"max"`
}

type statusView struct {
	httpkit.PlanStatus
	MaxWallets int                     `json:"max_wallets"`
	Wallets    int                     `json:"wallets"`
	AlertTypes map[string]alertTypeUse `json:"alert_types"`
}

// status is GET /v1/pf/status: the plan and each alert type's use.
func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	reg := a.d.Service.Targets
	v := statusView{PlanStatus: httpkit.StatusOf(p), MaxWallets: p.Sub.MaxWallets, Wallets: len(reg.List(p.AccountID)),
		AlertTypes: map[string]alertTypeUse{}}
	for a, n := range reg.Counts(p.AccountID) {
		v.AlertTypes[a] = alertTypeUse{Used: n, Max: p.Sub.MaxWallets}
	}
	return 200, v, nil
}
