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

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

type detector struct {
	wl    *Watchlist
	store Store
	jobs  Jobs
	hub   *delivery.Hub
	now   func() time.Time
	log   *slog.Logger
	// recordFirst publishes a match only once the store recorded it (a
	// cluster: see Config.RecordFirst).
	recordFirst bool
}

func newDetector(wl *Watchlist, store Store, jobs Jobs, hub *delivery.Hub, now func() time.Time, log *slog.Logger, recordFirst bool) *detector {
	return &detector{wl: wl, store: store, jobs: jobs, hub: hub, now: now, log: log, recordFirst: recordFirst}
}

func (a *detector) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *observed:
		a.launched(m)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.log.Warn("eca actor: unexpected message", "type", reflect.TypeOf(m).String())
	}
}

// launched matches a launch against the watchlist: each matched entry ends,
// its match is recorded and published on the account's topic.
func (a *detector) launched(m *observed) {
	now := a.now()
	for _, h := range a.wl.match(m.launch, now) {
		data, err := json.Marshal(NewMatchData(&h.entry, m.launch, h.matchType, now))
		if err != nil {
			a.log.Error("eca: encode match", "err", err)
			continue
		}
		rec := persistence.ECAMatch{AccountID: h.entry.AccountID, EntryID: h.entry.ID, MatchedAt: now, Data: data}
		frame := delivery.NewFrame(protocol.AppendTypeDataFrame(nil, FrameType, data), "", 0)
		topic := delivery.AccountTopic(protocol.ProductECA, h.entry.AccountID)
		a.jobs.Do("eca match", func(ctx context.Context) error {
			err := a.store.RecordECAMatch(ctx, rec)
			if err != nil && ignoreNotFound(err) == nil {
				// Removed by its owner while the match was on its way, or
				// (a cluster) matched on another node first.
				a.log.Info("eca: match of an entry no longer active not kept", "entry", rec.EntryID)
				return nil
			}
			if err == nil {
				a.wl.changed(rec.AccountID) // the other nodes drop the entry
				if a.recordFirst {
					a.hub.Publish(topic, frame)
				}
			}
			return err
		})
		if !a.recordFirst && a.hub.Listened(topic) {
			a.hub.Publish(topic, frame)
		}
	}
}
