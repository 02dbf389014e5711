// Package eca is ECA: a watchlist of token launches per account (one active
// entry at a time, by ticker, token name, contract address or creator
// wallet), matched against launched tokens; matches go to /v1/eca/ws and are
// listed for 24 hours.
package eca

import (
	"context"
	"log/slog"
	"reflect"
	"time"

	json "github.com/goccy/go-json"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

type detector struct {
	wl    *Watchlist
	store Store
	jobs  Jobs
	now   func() time.Time
	log   *slog.Logger

	sinks    map[string]map[Sink]struct{} // by account
	accounts map[Sink]string
}

func newDetector(wl *Watchlist, store Store, jobs Jobs, now func() time.Time, log *slog.Logger) *detector {
	return &detector{wl: wl, store: store, jobs: jobs, now: now, log: log,
		sinks: map[string]map[Sink]struct{}{}, accounts: map[Sink]string{}}
}

func (a *detector) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *observed:
		a.launched(m)
	case *subscribe:
		s := a.sinks[m.account]
		if s == nil {
			s = map[Sink]struct{}{}
			a.sinks[m.account] = s
		}
		s[m.sink] = struct{}{}
		a.accounts[m.sink] = m.account
	case *unsubscribe:
		if acc, ok := a.accounts[m.sink]; ok {
			delete(a.accounts, m.sink)
			delete(a.sinks[acc], m.sink)
			if len(a.sinks[acc]) == 0 {
				delete(a.sinks, acc)
			}
		}
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Touch: // Touch: engine.Sync; protoactor answers it
	default:
		a.log.Warn("eca actor: unexpected message", "type", reflect.TypeOf(m).String())
	}
}

// launched matches a launch against the watchlist: each matched entry ends,
// its match is recorded and sent to the account's sockets.
func (a *detector) launched(m *observed) {
	now := a.now()
	for _, h := range a.wl.match(m.launch, now) {
		data, err := json.Marshal(NewMatchData(&h.entry, m.launch, h.matchType, now))
		if err != nil {
			a.log.Error("eca: encode match", "err", err)
			continue
		}
		rec := persistence.ECAMatch{AccountID: h.entry.AccountID, EntryID: h.entry.ID, MatchedAt: now, Data: data}
		a.jobs.Do("eca match", func(ctx context.Context) error {
			err := a.store.RecordECAMatch(ctx, rec)
			if err != nil && ignoreNotFound(err) == nil {
				// Removed by its owner while the match was on its way.
				a.log.Info("eca: match of an entry no longer active not kept", "entry", rec.EntryID)
				return nil
			}
			return err
		})
		sinks := a.sinks[h.entry.AccountID]
		if len(sinks) == 0 {
			continue
		}
		f, err := EncodeFrame(data)
		if err != nil {
			a.log.Error("eca: encode frame", "err", err)
			continue
		}
		for s := range sinks {
			s.Send(f)
		}
	}
}
