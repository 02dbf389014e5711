package ct

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/productsock"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// Registry is the Convergence Tracker's accounts (handles have no options).
type Registry = watchlist.Registry[Settings, struct{}]

// NewRegistry returns the Convergence Tracker registry over store.
func NewRegistry(store persistence.WatchStore, now func() time.Time) *Registry {
	return watchlist.New[Settings, struct{}](protocol.ProductCT, store, DefaultSettings, now)
}

// Deps are what the detector works with.
type Deps struct {
	Registry *Registry
	Sockets  *productsock.Hub
	Webhooks cw.Webhooks // nil: none
	Persist  cw.Persister
	Store    persistence.WatchStore
	Now      func() time.Time
	Log      *slog.Logger
}

// Detector is the running Convergence Tracker. It is the cw tracker's
// MembershipSink.
type Detector struct {
	d    *Deps
	root *actor.RootContext
	pid  *actor.PID
}

// StartDetector loads what was reported before (so an ongoing convergence
// does not fire again after a restart) and spawns the detector.
func StartDetector(ctx context.Context, system *actor.ActorSystem, d *Deps) (*Detector, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	stored, err := d.Store.ListWatchStates(ctx, protocol.ProductCT)
	if err != nil {
		return nil, fmt.Errorf("load convergence state: %w", err)
	}
	a := &detector{d: d, handles: map[string]map[string]cw.Membership{}, joins: map[string]map[string]int64{},
		info: map[string]communityInfo{}, refs: map[string]int{}, fired: map[string]map[string]Fired{}}
	horizon := d.Now().UnixMilli() - maxWindowMS
	for _, s := range stored {
		var m map[string]Fired
		if err := json.Unmarshal(s.Data, &m); err != nil {
			return nil, fmt.Errorf("load convergence state of %s: %w", s.Key, err)
		}
		for c, f := range m {
			if f.At < horizon {
				delete(m, c)
			}
		}
		a.fired[s.Key] = m
	}
	det := &Detector{d: d, root: system.Root}
	det.pid = system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return a }))
	return det, nil
}

// Watched reports whether any account watches handle (the cw tracker's
// AlsoWatched).
func (t *Detector) Watched(handle string) bool { return t.d.Registry.Watched(handle) }

// Memberships takes a handle's memberships from the cw tracker; it never
// blocks.
func (t *Detector) Memberships(m *cw.MembershipUpdate) { t.root.Send(t.pid, m) }

// Unwatch tells the detector that handle lost a watcher.
func (t *Detector) Unwatch(handle string) { t.root.Send(t.pid, &Unwatch{Handle: handle}) }

// Current returns acct's convergences that hold now.
func (t *Detector) Current(acct string) ([]Data, error) {
	res, err := t.root.RequestFuture(t.pid, &Current{Account: acct, At: t.d.Now().UnixMilli()}, cw.QueryTimeout).Result()
	if err != nil {
		return nil, fmt.Errorf("convergence query: %w", err)
	}
	r, ok := res.(*CurrentResult)
	if !ok {
		return nil, errors.New("convergence query: unexpected answer")
	}
	return r.Convergences, nil
}

// Stop lets the detector finish what it was sent, then stops it.
func (t *Detector) Stop() { _ = t.root.PoisonFuture(t.pid).Wait() }

// PID is the actor's address (engine.Sync sends it a round trip).
func (t *Detector) PID() *actor.PID { return t.pid }

type communityInfo struct {
	name    string
	members int64
}

type detector struct {
	d *Deps
	// handles are the memberships of watched handles, by community id.
	handles map[string]map[string]cw.Membership
	// joins index the known join times: community -> handle -> epoch ms.
	joins map[string]map[string]int64
	info  map[string]communityInfo
	// refs counts the handles holding each community, to drop its info.
	refs map[string]int
	// fired is what was last reported: account -> community -> Fired.
	fired map[string]map[string]Fired
}

func (a *detector) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *cw.MembershipUpdate:
		a.update(m)
	case *Unwatch:
		if !a.d.Registry.Watched(m.Handle) {
			a.forget(m.Handle)
		}
	case *Current:
		c.Respond(&CurrentResult{Convergences: a.current(m.Account, m.At)})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Touch: // Touch: engine.Sync; protoactor answers it
	default:
		a.d.Log.Warn("convergence detector: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

func (a *detector) update(m *cw.MembershipUpdate) {
	if !m.Seed && !a.d.Registry.Watched(m.Handle) {
		a.forget(m.Handle)
		return
	}
	a.forget(m.Handle)
	cur := make(map[string]cw.Membership, len(m.Communities))
	for _, ms := range m.Communities {
		if _, dup := cur[ms.ID]; !dup {
			a.refs[ms.ID]++
		}
		cur[ms.ID] = ms
		a.info[ms.ID] = communityInfo{name: ms.Name, members: ms.MemberCount}
		if ms.JoinedAt > 0 {
			j := a.joins[ms.ID]
			if j == nil {
				j = map[string]int64{}
				a.joins[ms.ID] = j
			}
			j[m.Handle] = ms.JoinedAt
		}
	}
	a.handles[m.Handle] = cur
	if m.Seed {
		return
	}
	check := make([]string, 0, len(cur)+len(m.Left))
	for _, ms := range m.Communities {
		check = append(check, ms.ID)
	}
	check = append(check, m.Left...)
	// Judge by the detector's clock, not m.At: observations of different
	// handles reach the detector in any order.
	now := a.d.Now().UnixMilli()
	for _, acct := range a.d.Registry.Watchers(m.Handle) {
		s := a.d.Registry.Settings(acct)
		changed := false
		for _, cid := range check {
			if a.evaluate(acct, cid, s, now) {
				changed = true
			}
		}
		if changed {
			a.saveFired(acct)
		}
	}
}

// forget drops handle's memberships from the index.
func (a *detector) forget(h string) {
	for cid := range a.handles[h] {
		if a.refs[cid]--; a.refs[cid] <= 0 {
			delete(a.refs, cid)
			delete(a.info, cid)
		}
		if j := a.joins[cid]; j != nil {
			delete(j, h)
			if len(j) == 0 {
				delete(a.joins, cid)
			}
		}
	}
	delete(a.handles, h)
}

// members returns acct's handles in community cid that count at now under s.
func (a *detector) members(acct, cid string, s Settings, now int64) []Member {
	if s.MinMemberCount > 0 && a.info[cid].members < s.MinMemberCount {
		return nil
	}
	return InWindow(a.joins[cid], func(h string) bool { return a.d.Registry.Has(acct, h) }, now, s.WindowMS())
}

// evaluate decides on (acct, cid) at now, reports a new convergence, and
// says whether the fired state changed.
func (a *detector) evaluate(acct, cid string, s Settings, now int64) bool {
	members := a.members(acct, cid, s, now)
	var prev *Fired
	if f, ok := a.fired[acct][cid]; ok {
		prev = &f
	}
	fire, next := Decide(prev, len(members), s.MinConvergence, now, s.WindowMS())
	changed := (prev == nil) != (next == nil) || (prev != nil && next != nil && *prev != *next)
	if next == nil {
		if m := a.fired[acct]; m != nil {
			delete(m, cid)
		}
	} else {
		m := a.fired[acct]
		if m == nil {
			m = map[string]Fired{}
			a.fired[acct] = m
		}
		m[cid] = *next
	}
	if fire {
		a.report(acct, cid, members)
	}
	return changed
}

func (a *detector) report(acct, cid string, members []Member) {
	now := a.d.Now().UnixMilli()
	info := a.info[cid]
	d := newData(cid, info.name, info.members, members, now)
	data, err := encode(&d)
	if err != nil {
		a.d.Log.Error("convergence: encode", "community", cid, "err", err)
		return
	}
	if a.d.Sockets != nil {
		a.d.Sockets.Publish(acct, "", watchlist.Frame(FrameConvergence, data))
	}
	if a.d.Webhooks != nil {
		a.d.Webhooks.Send(acct, watchlist.WebhookBody(EventConvergence, now, data))
	}
	ev := persistence.WatchEvent{Product: protocol.ProductCT, AccountID: acct, Kind: EventConvergence, Data: data,
		CreatedAt: time.UnixMilli(now).UTC()}
	store := a.d.Store
	a.d.Persist.Do("ct events", func(ctx context.Context) error {
		return store.AppendWatchEvents(ctx, []persistence.WatchEvent{ev})
	})
}

func (a *detector) saveFired(acct string) {
	store := a.d.Store
	m := a.fired[acct]
	if len(m) == 0 {
		delete(a.fired, acct)
		a.d.Persist.Do("ct state", func(ctx context.Context) error {
			return store.DeleteWatchStates(ctx, protocol.ProductCT, []string{acct})
		})
		return
	}
	data, err := json.Marshal(m)
	if err != nil {
		a.d.Log.Error("convergence: encode state", "account", acct, "err", err)
		return
	}
	st := persistence.WatchState{Product: protocol.ProductCT, Key: acct, Data: data, UpdatedAt: a.d.Now().UTC()}
	a.d.Persist.Do("ct state", func(ctx context.Context) error {
		return store.PutWatchStates(ctx, []persistence.WatchState{st})
	})
}

// current lists acct's convergences that hold at now, largest first.
func (a *detector) current(acct string, now int64) []Data {
	s := a.d.Registry.Settings(acct)
	seen := map[string]bool{}
	var out []Data
	for _, h := range a.d.Registry.Names(acct) {
		for cid, ms := range a.handles[h] {
			if seen[cid] || ms.JoinedAt <= 0 {
				continue
			}
			seen[cid] = true
			members := a.members(acct, cid, s, now)
			if len(members) < s.MinConvergence {
				continue
			}
			at := now
			if f, ok := a.fired[acct][cid]; ok {
				at = f.At
			}
			info := a.info[cid]
			out = append(out, newData(cid, info.name, info.members, members, at))
		}
	}
	slices.SortFunc(out, func(x, y Data) int {
		return cmp.Or(cmp.Compare(y.ConvergenceCount, x.ConvergenceCount), cmp.Compare(x.CommunityID, y.CommunityID))
	})
	return out
}
