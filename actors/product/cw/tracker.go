package cw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/productsock"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Registry is Community Watch's accounts.
type Registry = watchlist.Registry[Settings, TargetOptions]

// NewRegistry returns the Community Watch registry over store.
func NewRegistry(store persistence.WatchStore, now func() time.Time) *Registry {
	return watchlist.New[Settings, TargetOptions](protocol.ProductCW, store, DefaultSettings, now)
}

// Webhooks sends a webhook body to an account's endpoint, if it has one,
// under the product's delivery policy. Send must not block.
type Webhooks interface {
	Send(account string, body []byte)
}

// Persister runs store writes off the hot path, in order (writer.Writer).
type Persister interface {
	Do(name string, f func(ctx context.Context) error)
}

// MembershipSink hears every handle's memberships (the Convergence
// Tracker). Memberships must not block.
type MembershipSink interface {
	Memberships(m *MembershipUpdate)
}

// Deps are what the tracker works with.
type Deps struct {
	Registry *Registry
	// AlsoWatched reports whether another product (the Convergence Tracker)
	// watches a handle, so the tracker follows it too. Nil: none.
	AlsoWatched func(handle string) bool
	Sink        MembershipSink // nil: none
	Dir         *directory.Directory
	Sockets     *productsock.Hub
	Webhooks    Webhooks // nil: none
	Persist     Persister
	Store       persistence.WatchStore
	Now         func() time.Time
	Log         *slog.Logger
}

// Tracker is the running Community Watch detector.
type Tracker struct {
	d    *Deps
	root *actor.RootContext
	pid  *actor.PID
}

// QueryTimeout bounds a REST query of the tracker.
const QueryTimeout = 5 * time.Second

// StartTracker loads the persisted handle states, forgets those nobody
// watches any more, seeds the sink and spawns the tracker under system.
func StartTracker(ctx context.Context, system *actor.ActorSystem, d *Deps) (*Tracker, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	stored, err := d.Store.ListWatchStates(ctx, protocol.ProductCW)
	if err != nil {
		return nil, fmt.Errorf("load community watch state: %w", err)
	}
	a := &trackerActor{d: d, states: make(map[string]*entry, len(stored))}
	var stale []string
	for _, s := range stored {
		if !a.watched(s.Key) {
			stale = append(stale, s.Key)
			continue
		}
		st, err := decodeState(s.Data)
		if err != nil {
			return nil, fmt.Errorf("load community watch state of %s: %w", s.Key, err)
		}
		a.states[s.Key] = &entry{st: st, saved: s.Data}
		if d.Sink != nil && d.AlsoWatched != nil && d.AlsoWatched(s.Key) {
			d.Sink.Memberships(&MembershipUpdate{Handle: s.Key, Communities: slices.Clone(st.Communities), Seed: true})
		}
	}
	if len(stale) > 0 {
		d.Persist.Do("cw forget state", func(ctx context.Context) error {
			return d.Store.DeleteWatchStates(ctx, protocol.ProductCW, stale)
		})
	}
	t := &Tracker{d: d, root: system.Root}
	t.pid = system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return a }))
	return t, nil
}

// Watched reports whether the tracker follows handle.
func (t *Tracker) Watched(handle string) bool {
	return t.d.Registry.Watched(handle) || (t.d.AlsoWatched != nil && t.d.AlsoWatched(handle))
}

// Observe is the tap of communities, following and followers_new
// observations: it forwards those of watched handles and never blocks.
func (t *Tracker) Observe(o *protocol.Observation) {
	if !t.Watched(o.Key) {
		return
	}
	t.root.Send(t.pid, &Observe{Obs: o})
}

// Unwatch tells the tracker that handle lost a watcher.
func (t *Tracker) Unwatch(handle string) { t.root.Send(t.pid, &Unwatch{Handle: handle}) }

// States returns the state of each handle the tracker knows.
func (t *Tracker) States(handles []string) (map[string]HandleView, error) {
	res, err := t.root.RequestFuture(t.pid, &Query{Handles: handles}, QueryTimeout).Result()
	if err != nil {
		return nil, fmt.Errorf("community watch query: %w", err)
	}
	r, ok := res.(*QueryResult)
	if !ok {
		return nil, errors.New("community watch query: unexpected answer")
	}
	return r.States, nil
}

// Stop lets the tracker finish what it was sent, then stops it.
func (t *Tracker) Stop() { _ = t.root.PoisonFuture(t.pid).Wait() }

// PID is the actor's address (engine.Sync sends it a round trip).
func (t *Tracker) PID() *actor.PID { return t.pid }

type entry struct {
	st    HandleState
	saved []byte // the state as last persisted
}

type trackerActor struct {
	d      *Deps
	states map[string]*entry
}

func (a *trackerActor) watched(h string) bool {
	return a.d.Registry.Watched(h) || (a.d.AlsoWatched != nil && a.d.AlsoWatched(h))
}

func (a *trackerActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *Observe:
		a.observe(m.Obs)
	case *Unwatch:
		a.unwatch(m.Handle)
	case *Query:
		out := make(map[string]HandleView, len(m.Handles))
		for _, h := range m.Handles {
			if e := a.states[h]; e != nil {
				out[h] = HandleView{Synced: e.st.Synced, SyncedAt: e.st.SyncedAt, Communities: slices.Clone(e.st.Communities)}
			}
		}
		c.Respond(&QueryResult{States: out})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Touch: // Touch: engine.Sync; protoactor answers it
	default:
		a.d.Log.Warn("community watch tracker: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

func (a *trackerActor) observe(o *protocol.Observation) {
	h := o.Key
	if !a.watched(h) {
		return // unwatched since the tap forwarded it
	}
	e := a.states[h]
	if e == nil {
		e = &entry{}
		a.states[h] = e
	}
	switch o.Kind {
	case protocol.KindCommunities:
		a.communities(h, e, o)
	case protocol.KindFollowing:
		a.following(h, e, o)
	case protocol.KindFollowersNew:
		a.newFollowers(h, o)
	}
}

func (a *trackerActor) communities(h string, e *entry, o *protocol.Observation) {
	prev := e.st
	next, changes := DiffCommunities(prev, o.Communities.Communities, o.DetectedAt)
	e.st = next
	// Member counts move all the time and are refreshed by every snapshot:
	// they alone are not worth a store write.
	if !prev.Synced || len(changes) > 0 || !slices.Equal(prev.Left, next.Left) ||
		!slices.EqualFunc(prev.Communities, next.Communities, sameButCount) {
		a.save(h, e)
	}
	if len(changes) > 0 && a.d.Registry.Watched(h) {
		a.deliverCommunity(h, changes, o.DetectedAt)
	}
	if a.d.Sink != nil && a.d.AlsoWatched != nil && a.d.AlsoWatched(h) {
		u := &MembershipUpdate{Handle: h, Communities: slices.Clone(next.Communities), At: o.DetectedAt}
		for _, c := range changes {
			if c.Kind == Left {
				u.Left = append(u.Left, c.Community.ID)
			}
		}
		a.d.Sink.Memberships(u)
	}
}

func (a *trackerActor) following(h string, e *entry, o *protocol.Observation) {
	if !a.d.Registry.Watched(h) {
		return // followed only for the Convergence Tracker: no follow events
	}
	prev := e.st
	next, added := DiffFollowing(prev, o.Following.Users)
	e.st = next
	if !prev.FollowingSynced || !slices.Equal(prev.Following, next.Following) {
		a.save(h, e)
	}
	if len(added) == 0 {
		return
	}
	st := a.stamp(o)
	uid := a.userID(h)
	accts := a.d.Registry.Watchers(h)
	var evs []persistence.WatchEvent
	for i := range added {
		data, err := followData(h, uid, &added[i], st)
		if err != nil {
			a.d.Log.Error("community watch: encode follow", "handle", h, "err", err)
			continue
		}
		body := watchlist.WebhookBody(EventFollowChange, st.detectedAt, data)
		for _, acct := range accts {
			if a.d.Registry.Settings(acct).Enabled(EventAccountFollowed) {
				evs = a.deliver(evs, acct, EventFollowChange, data, body, st)
			}
		}
	}
	a.logEvents(evs)
}

func (a *trackerActor) newFollowers(h string, o *protocol.Observation) {
	users := o.FollowersNew.Users
	if len(users) == 0 || !a.d.Registry.Watched(h) {
		return
	}
	st := a.stamp(o)
	var data, body []byte
	var evs []persistence.WatchEvent
	for _, acct := range a.d.Registry.Watchers(h) {
		if it, ok := a.d.Registry.Item(acct, h); !ok || !it.Opts.NewFollowers {
			continue
		}
		if data == nil {
			var err error
			if data, err = newFollowersData(h, a.userID(h), users, st); err != nil {
				a.d.Log.Error("community watch: encode new followers", "handle", h, "err", err)
				return
			}
			body = watchlist.WebhookBody(EventNewFollowers, st.detectedAt, data)
		}
		evs = a.deliver(evs, acct, EventNewFollowers, data, body, st)
	}
	a.logEvents(evs)
}

// deliverCommunity sends each change to every watcher's sockets (no filter)
// and, through its settings, to its webhook.
func (a *trackerActor) deliverCommunity(h string, changes []Change, observedAt int64) {
	st := stamp{detectedAt: a.d.Now().UnixMilli(), observedAt: observedAt}
	uid := a.userID(h)
	accts := a.d.Registry.Watchers(h)
	var evs []persistence.WatchEvent
	for _, c := range changes {
		if !Streamed(c) {
			continue
		}
		data, err := communityData(h, uid, c, st)
		if err != nil {
			a.d.Log.Error("community watch: encode change", "handle", h, "err", err)
			continue
		}
		frame := watchlist.Frame(FrameCommunityChange, data)
		var body []byte
		for _, acct := range accts {
			if a.d.Sockets != nil {
				a.d.Sockets.Publish(acct, h, frame)
			}
			if a.d.Registry.Settings(acct).Deliverable(c) {
				if body == nil {
					body = watchlist.WebhookBody(FrameCommunityChange, st.detectedAt, data)
				}
				evs = a.deliver(evs, acct, FrameCommunityChange, data, body, st)
			}
		}
	}
	a.logEvents(evs)
}

// deliver sends body to acct's webhook and records the delivery for status.
func (a *trackerActor) deliver(evs []persistence.WatchEvent, acct, kind string, data, body []byte, st stamp) []persistence.WatchEvent {
	if a.d.Webhooks != nil {
		a.d.Webhooks.Send(acct, body)
	}
	return append(evs, persistence.WatchEvent{Product: protocol.ProductCW, AccountID: acct, Kind: kind, Data: data,
		CreatedAt: time.UnixMilli(st.detectedAt).UTC()})
}

func (a *trackerActor) logEvents(evs []persistence.WatchEvent) {
	if len(evs) == 0 {
		return
	}
	store := a.d.Store
	a.d.Persist.Do("cw events", func(ctx context.Context) error { return store.AppendWatchEvents(ctx, evs) })
}

func (a *trackerActor) stamp(o *protocol.Observation) stamp {
	return stamp{detectedAt: a.d.Now().UnixMilli(), observedAt: o.DetectedAt}
}

func (a *trackerActor) userID(h string) *string {
	if a.d.Dir == nil {
		return nil
	}
	if e, ok := a.d.Dir.ByHandle(h); ok {
		id := e.User.ID
		return &id
	}
	return nil
}

// sameButCount compares memberships, member counts aside.
func sameButCount(x, y Membership) bool {
	x.MemberCount, y.MemberCount = 0, 0
	return x == y
}

// save persists e's state when it differs from what was persisted.
func (a *trackerActor) save(h string, e *entry) {
	data, err := encodeState(&e.st)
	if err != nil {
		a.d.Log.Error("community watch: encode state", "handle", h, "err", err)
		return
	}
	if string(data) == string(e.saved) {
		return
	}
	e.saved = data
	st := persistence.WatchState{Product: protocol.ProductCW, Key: h, Data: data, UpdatedAt: a.d.Now().UTC()}
	store := a.d.Store
	a.d.Persist.Do("cw state", func(ctx context.Context) error { return store.PutWatchStates(ctx, []persistence.WatchState{st}) })
}

func (a *trackerActor) unwatch(h string) {
	if a.watched(h) {
		return
	}
	if _, ok := a.states[h]; !ok {
		return
	}
	delete(a.states, h)
	store := a.d.Store
	a.d.Persist.Do("cw forget state", func(ctx context.Context) error {
		return store.DeleteWatchStates(ctx, protocol.ProductCW, []string{h})
	})
}
