// Package pumpfun is the PumpFun detector: wallet events (livestream, token
// launch, graduation) of watched wallets from launchpad observations, and
// callers' callouts with their 2x, 5x and 10x milestones from callout and
// market_cap observations, published on the wallets' hub topics for
// /v1/pf/ws and, for wallet events, kept per account for GET /v1/pf/events.
package pumpfun

import (
	"context"
	"log/slog"
	"reflect"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// Limits of the detector.
const (
	// EventsKept is how many wallet events each account keeps (spec 3: the
	// events list shows the last 50).
	EventsKept = 50
	// followCalls bounds the callouts followed for milestones.
	followCalls = 50_000
)

// EventStore is what the detector writes (through Jobs).
type EventStore interface {
	AppendPFEvents(ctx context.Context, evs []persistence.PFEvent, keep int) error
}

type detector struct {
	reg   *Registry
	store EventStore
	jobs  Jobs
	hub   *delivery.Hub
	now   func() time.Time
	log   *slog.Logger
	calls *callBook
}

func newDetector(reg *Registry, store EventStore, jobs Jobs, hub *delivery.Hub, now func() time.Time, log *slog.Logger) *detector {
	return &detector{reg: reg, store: store, jobs: jobs, hub: hub, now: now, log: log, calls: newCallBook(followCalls)}
}

func (a *detector) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *observed:
		switch o := m.obs; {
		case o.Launchpad != nil:
			a.walletEvent(o.Launchpad, o.DetectedAt)
		case o.Callout != nil:
			a.callout(o.Callout, o.DetectedAt)
		case o.MarketCap != nil:
			a.marketCap(o.MarketCap, o.DetectedAt)
		}
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.log.Warn("pumpfun actor: unexpected message", "type", reflect.TypeOf(m).String())
	}
}

// walletEvent records a launchpad event for the accounts watching its wallet
// with its alert type, and publishes it on the wallet's topic: the sockets
// that watched the wallet for that type at connect take it.
func (a *detector) walletEvent(l *protocol.LaunchpadObs, detectedAt int64) {
	bit := bitOf(AlertTypeOf(l.EventType))
	accounts := a.reg.watching(l.WalletAddress, bit)
	listened := a.hub.Listened(delivery.WalletTopic(l.WalletAddress))
	if len(accounts) == 0 && !listened {
		return
	}
	ev := WalletEvent{WalletAddress: l.WalletAddress, Mint: l.Mint, TokenName: l.TokenName, TokenSymbol: l.TokenSymbol,
		EventType: l.EventType, DetectedAt: detectedAt, DeliveryLatencyMS: max(0, a.now().UnixMilli()-detectedAt)}
	if len(accounts) > 0 {
		recs := make([]persistence.PFEvent, len(accounts))
		for i, acc := range accounts {
			recs[i] = ev.Record(acc)
		}
		a.jobs.Do("pf events", func(ctx context.Context) error { return a.store.AppendPFEvents(ctx, recs, EventsKept) })
	}
	a.publish(l.WalletAddress, bit, ev)
}

// callout follows a callout and publishes callout_new (and any milestone
// its market cap already reaches) for the sockets of accounts that list the
// caller.
func (a *detector) callout(o *protocol.CalloutObs, detectedAt int64) {
	c := a.calls.add(o)
	a.publish(o.CallerWallet, bitOf(AlertCallouts), NewCallout(o, detectedAt))
	a.milestones(c, o.MarketCap, detectedAt)
}

// marketCap checks every followed callout of the mint for milestones.
func (a *detector) marketCap(m *protocol.MarketCapObs, detectedAt int64) {
	for _, c := range a.calls.mint(m.Mint) {
		a.milestones(c, m.MarketCap, detectedAt)
	}
}

// milestones publishes a callout_milestone frame for each milestone mcap
// newly reaches, lowest first, each with the live multiplier.
func (a *detector) milestones(c *call, mcap float64, detectedAt int64) {
	hits, fired := Crossed(c.obs.CalloutMcap, mcap, c.fired)
	c.fired = fired
	for _, m := range hits {
		a.publish(c.obs.CallerWallet, bitOf(AlertCallouts), MilestoneCallout(&c.obs, m, mcap, detectedAt))
	}
	if fired == allFired {
		a.calls.drop(c) // nothing more to send
	}
}

// publish encodes a frame of data on wallet's topic, for the sockets that
// watch the wallet for alert type bit; nothing when no socket listens.
func (a *detector) publish(wallet string, bit alertBits, data any) {
	topic := delivery.WalletTopic(wallet)
	if !a.hub.Listened(topic) {
		return
	}
	d, err := json.Marshal(data)
	if err != nil {
		a.log.Error("pumpfun: encode frame", "err", err)
		return
	}
	a.hub.Publish(topic, delivery.NewFrame(protocol.AppendTypeDataFrame(nil, FrameType, d), wallet, uint8(bit)))
}
