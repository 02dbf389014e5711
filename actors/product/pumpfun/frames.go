package pumpfun

import (
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// FrameType is the `type` of every frame of /v1/pf/ws.
const FrameType = "pf_event"

// WalletEvent is spec 3's wallet event record as the WebSocket carries it:
// detected_at in epoch milliseconds, like the callout frames (REST shows it
// in ISO 8601).
type WalletEvent struct {
	WalletAddress     string `json:"wallet_address"`
	Mint              string `json:"mint"`
	TokenName         string `json:"token_name"`
	TokenSymbol       string `json:"token_symbol"`
	EventType         string `json:"event_type"`
	DetectedAt        int64  `json:"detected_at"`
	DeliveryLatencyMS int64  `json:"delivery_latency_ms"`
}

// Record is the event as stored for account.
func (e WalletEvent) Record(account string) persistence.PFEvent {
	return persistence.PFEvent{AccountID: account, Wallet: e.WalletAddress, Mint: e.Mint, TokenName: e.TokenName,
		TokenSymbol: e.TokenSymbol, EventType: e.EventType, DetectedAt: time.UnixMilli(e.DetectedAt).UTC(),
		DeliveryLatencyMS: e.DeliveryLatencyMS}
}

// Callout is the callout frame's data (spec 3), field for field.
type Callout struct {
	EventType      string  `json:"event_type"`
	Mint           string  `json:"mint"`
	Creator        string  `json:"creator"`
	TokenName      string  `json:"token_name"`
	TokenSymbol    string  `json:"token_symbol"`
	MarketCap      float64 `json:"market_cap"`
	DetectedAt     int64   `json:"detected_at"`
	CallerWallet   string  `json:"caller_wallet"`
	CallerUsername string  `json:"caller_username"`
	CalloutMcap    float64 `json:"callout_mcap"`
	Multiplier     float64 `json:"multiplier"`
	AmountHeld     float64 `json:"amount_held"`
	CostBasisSOL   float64 `json:"cost_basis_sol"`
	Thesis         string  `json:"thesis"`
	Milestone      *string `json:"milestone"`
}

// NewCallout is the callout_new data of a callout observed at detectedAt.
func NewCallout(c *protocol.CalloutObs, detectedAt int64) Callout {
	return Callout{EventType: EventCalloutNew, Mint: c.Mint, Creator: c.Creator, TokenName: c.TokenName,
		TokenSymbol: c.TokenSymbol, MarketCap: c.MarketCap, DetectedAt: detectedAt, CallerWallet: c.CallerWallet,
		CallerUsername: c.CallerUsername, CalloutMcap: c.CalloutMcap, Multiplier: Multiplier(c.CalloutMcap, c.MarketCap),
		AmountHeld: c.AmountHeld, CostBasisSOL: c.CostBasisSOL, Thesis: c.Thesis}
}

// MilestoneCallout is the callout_milestone data of callout c reaching m at
// market cap mcap, observed at detectedAt.
func MilestoneCallout(c *protocol.CalloutObs, m Milestone, mcap float64, detectedAt int64) Callout {
	out := NewCallout(c, detectedAt)
	name := m.Name
	out.EventType, out.MarketCap, out.Multiplier, out.Milestone = EventCalloutMilestone, mcap, Multiplier(c.CalloutMcap, mcap), &name
	return out
}
