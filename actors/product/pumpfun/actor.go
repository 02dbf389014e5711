// Package pumpfun is the PumpFun detector: wallet events (livestream, token
// launch, graduation) of watched wallets from launchpad observations, and
// callers' callouts with their 2x, 5x and 10x milestones from callout and
// market_cap observations, delivered to /v1/pf/ws and, for wallet events,
// kept per account for GET /v1/pf/events.
package pumpfun

import (
	"context"
	"log/slog"
	"reflect"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
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
	now   func() time.Time
	log   *slog.Logger

	sinks       map[Sink]map[string]alertBits
	walletSinks map[string]map[Sink]alertBits
	calls       *callBook
}

func newDetector(reg *Registry, store EventStore, jobs Jobs, now func() time.Time, log *slog.Logger) *detector {
	return &detector{reg: reg, store: store, jobs: jobs, now: now, log: log,
		sinks: map[Sink]map[string]alertBits{}, walletSinks: map[string]map[Sink]alertBits{}, calls: newCallBook(followCalls)}
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
	case *subscribe:
		a.sinks[m.sink] = m.wallets
		for w, bits := range m.wallets {
			s := a.walletSinks[w]
			if s == nil {
				s = map[Sink]alertBits{}
				a.walletSinks[w] = s
			}
			s[m.sink] = bits
		}
	case *unsubscribe:
		for w := range a.sinks[m.sink] {
			if s := a.walletSinks[w]; s != nil {
				delete(s, m.sink)
				if len(s) == 0 {
					delete(a.walletSinks, w)
				}
			}
		}
		delete(a.sinks, m.sink)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Touch: // Touch: engine.Sync; protoactor answers it
	default:
		a.log.Warn("pumpfun actor: unexpected message", "type", reflect.TypeOf(m).String())
	}
}

// walletEvent records a launchpad event for the accounts watching its wallet
// with its alert type, and sends it to the sockets that watched it at connect.
func (a *detector) walletEvent(l *protocol.LaunchpadObs, detectedAt int64) {
	bit := bitOf(AlertTypeOf(l.EventType))
	accounts := a.reg.watching(l.WalletAddress, bit)
	var sinks []Sink
	for s, bits := range a.walletSinks[l.WalletAddress] {
		if bits&bit != 0 {
			sinks = append(sinks, s)
		}
	}
	if len(accounts) == 0 && len(sinks) == 0 {
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
	a.send(sinks, ev)
}

// callout follows a callout and sends callout_new (and any milestone its
// market cap already reaches) to the sockets of accounts that list the caller.
func (a *detector) callout(o *protocol.CalloutObs, detectedAt int64) {
	c := a.calls.add(o)
	sinks := a.callerSinks(o.CallerWallet)
	a.send(sinks, NewCallout(o, detectedAt))
	a.milestones(c, o.MarketCap, detectedAt, sinks)
}

// marketCap checks every followed callout of the mint for milestones.
func (a *detector) marketCap(m *protocol.MarketCapObs, detectedAt int64) {
	for _, c := range a.calls.mint(m.Mint) {
		a.milestones(c, m.MarketCap, detectedAt, nil)
	}
}

// milestones sends a callout_milestone frame for each milestone mcap newly
// reaches, lowest first, each with the live multiplier.
func (a *detector) milestones(c *call, mcap float64, detectedAt int64, sinks []Sink) {
	hits, fired := Crossed(c.obs.CalloutMcap, mcap, c.fired)
	c.fired = fired
	if len(hits) > 0 && sinks == nil {
		sinks = a.callerSinks(c.obs.CallerWallet)
	}
	for _, m := range hits {
		a.send(sinks, MilestoneCallout(&c.obs, m, mcap, detectedAt))
	}
	if fired == allFired {
		a.calls.drop(c) // nothing more to send
	}
}

func (a *detector) callerSinks(caller string) []Sink {
	var out []Sink
	for s, bits := range a.walletSinks[caller] {
		if bits&bitOf(AlertCallouts) != 0 {
			out = append(out, s)
		}
	}
	return out
}

func (a *detector) send(sinks []Sink, data any) {
	if len(sinks) == 0 {
		return
	}
	f, err := EncodeFrame(data)
	if err != nil {
		a.log.Error("pumpfun: encode frame", "err", err)
		return
	}
	for _, s := range sinks {
		s.Send(f)
	}
}
