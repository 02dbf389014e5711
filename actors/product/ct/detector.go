package ct

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/watchlist"
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
	// Memberships reads a handle's memberships as its actor last persisted
	// them (handle.StoreLoader.Memberships): the detector reloads those of
	// the watched handles when it starts. Nil: it starts without.
	Memberships func(ctx context.Context, handle string) (ms []handle.Membership, known bool, err error)
	// Live asks the handle actors for their memberships now (handle.Memberships
	// over the engine's lookup): a handle added is counted with them at once.
	// Nil: an added handle counts from its next list.
	Live     func(ctx context.Context, handles []string) (map[string]handle.MembershipsView, error)
	Hub      *delivery.Hub // the sockets hear the accounts' topics; nil: none
	Webhooks cw.Webhooks   // nil: none
	Persist  cw.Persister
	Store    persistence.WatchStore
	Now      func() time.Time
	Log      *slog.Logger
}

// Detector is the running Convergence Tracker.
type Detector struct {
	d   *Deps
	ref *kit.Ref
}

// StartDetector spawns the detector, the singleton "ct", once it has loaded
// what was reported before (see Load).
func StartDetector(ctx context.Context, k *kit.Kit, d *Deps) (*Detector, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	ref, err := k.Spawn(ctx, "ct", func() actor.Actor { return newDetector(d) })
	if err != nil {
		return nil, err
	}
	return &Detector{d: d, ref: ref}, nil
}

// Hear takes the handle actors' membership changes (a handle.Subscriber):
// it forwards those of watched handles and never blocks.
func (t *Detector) Hear(change any) {
	if c, ok := change.(*handle.MembershipsChanged); ok && t.d.Registry.Watched(c.Handle) {
		t.ref.Tell(c)
	}
}

// Added counts handle h, which acct just added, with the memberships its
// handle actor knows now (the one-time sync of Community Watch, spec 3):
// those with a known join time inside the window count, those found in the
// handle's first list (join time unknown) never do, so old memberships
// raise no convergence.
func (t *Detector) Added(acct, h string) {
	if t.d.Live == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cw.QueryTimeout)
	defer cancel()
	ms, err := t.d.Live(ctx, []string{h})
	if err != nil {
		t.d.Log.Warn("convergence: memberships at add", "handle", h, "err", err)
		return
	}
	if v := ms[h]; v.Known {
		t.ref.Tell(&handle.MembershipsChanged{Handle: h, Memberships: v.Memberships, At: t.d.Now().UnixMilli()})
	}
}

// Unwatch tells the detector that handle lost a watcher.
func (t *Detector) Unwatch(handle string) { t.ref.Tell(&Unwatch{Handle: handle}) }

// Current returns acct's convergences that hold now.
func (t *Detector) Current(acct string) ([]Data, error) {
	r, err := kit.Ask[*CurrentResult](t.ref, &Current{Account: acct, At: t.d.Now().UnixMilli()}, kit.WithTimeout(cw.QueryTimeout))
	if err != nil {
		return nil, fmt.Errorf("convergence query: %w", err)
	}
	return r.Convergences, nil
}

// Stop lets the detector finish what it was sent, then stops it.
func (t *Detector) Stop() { _ = t.ref.Stop() }

type communityInfo struct {
	name    string
	members int64
}

type detector struct {
	d *Deps
	// handles are the memberships of watched handles, by community id: the
	// handle actors', indexed for the convergence windows.
	handles map[string]map[string]handle.Membership
	// joins index the known join times: community -> handle -> epoch ms.
	joins map[string]map[string]int64
	info  map[string]communityInfo
	// refs counts the handles holding each community, to drop its info.
	refs map[string]int
	// fired is what was last reported: account -> community -> Fired.
	fired map[string]map[string]Fired
}

func newDetector(d *Deps) *detector {
	return &detector{d: d, handles: map[string]map[string]handle.Membership{}, joins: map[string]map[string]int64{},
		info: map[string]communityInfo{}, refs: map[string]int{}, fired: map[string]map[string]Fired{}}
}

// Load reads what was reported before (at spawn and after a restart), so an
// ongoing convergence does not fire again, and the memberships of the
// watched handles as their actors persisted them.
func (a *detector) Load(ctx context.Context) error {
	stored, err := a.d.Store.ListWatchStates(ctx, protocol.ProductCT)
	if err != nil {
		return fmt.Errorf("load convergence state: %w", err)
	}
	horizon := a.d.Now().UnixMilli() - maxWindowMS
	for _, s := range stored {
		var m map[string]Fired
		if err := json.Unmarshal(s.Data, &m); err != nil {
			return fmt.Errorf("load convergence state of %s: %w", s.Key, err)
		}
		for c, f := range m {
			if f.At < horizon {
				delete(m, c)
			}
		}
		a.fired[s.Key] = m
	}
	if a.d.Memberships == nil {
		return nil
	}
	for _, h := range a.d.Registry.AllItems() {
		ms, known, err := a.d.Memberships(ctx, h)
		if err != nil {
			return fmt.Errorf("load memberships of %s: %w", h, err)
		}
		if known {
			a.index(h, ms)
		}
	}
	return nil
}

func (a *detector) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *handle.MembershipsChanged:
		a.update(m)
	case *Unwatch:
		if !a.d.Registry.Watched(m.Handle) {
			a.forget(m.Handle)
		}
	case *Current:
		c.Respond(&CurrentResult{Convergences: a.current(m.Account, m.At)})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("convergence detector: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

func (a *detector) update(m *handle.MembershipsChanged) {
	if !a.d.Registry.Watched(m.Handle) {
		a.forget(m.Handle)
		return
	}
	a.index(m.Handle, m.Memberships)
	check := make([]string, 0, len(m.Memberships)+len(m.Changes))
	for _, ms := range m.Memberships {
		check = append(check, ms.ID)
	}
	for _, c := range m.Changes {
		if c.Kind == handle.Left {
			check = append(check, c.Community.ID)
		}
	}
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

// index makes ms the memberships of handle h in the index.
func (a *detector) index(h string, ms []handle.Membership) {
	a.forget(h)
	cur := make(map[string]handle.Membership, len(ms))
	for _, m := range ms {
		if _, dup := cur[m.ID]; !dup {
			a.refs[m.ID]++
		}
		cur[m.ID] = m
		a.info[m.ID] = communityInfo{name: m.Name, members: m.MemberCount}
		if m.JoinedAt > 0 {
			j := a.joins[m.ID]
			if j == nil {
				j = map[string]int64{}
				a.joins[m.ID] = j
			}
			j[h] = m.JoinedAt
		}
	}
	a.handles[h] = cur
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
	if a.d.Hub != nil {
		a.d.Hub.Publish(delivery.AccountTopic(protocol.ProductCT, acct),
			delivery.NewFrame(protocol.AppendTypeDataFrame(nil, FrameConvergence, data), "", 0))
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
