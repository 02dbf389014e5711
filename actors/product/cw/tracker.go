package cw

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/product/watchlist"
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

// Deps are what the tracker works with.
type Deps struct {
	Registry *Registry
	// Memberships asks the handle actors for their memberships (REST views;
	// handle.Memberships over the engine's lookup).
	Memberships func(ctx context.Context, handles []string) (map[string]handle.MembershipsView, error)
	Dir         *directory.Directory
	Hub         *delivery.Hub // the sockets hear the accounts' topics; nil: none
	Syncs       *Syncs        // the one-time syncs held for sockets; nil: a new hold
	Webhooks    Webhooks      // nil: none
	Chat        ChatSink      // the chat bot hears follows and digests; nil: none
	Persist     Persister
	Store       persistence.WatchStore
	Now         func() time.Time
	Log         *slog.Logger
}

// ChatSink is the chat channel (actors/chat.Products): follows and the
// new-follower digest go to the account's chats too (spec 3: webhook and
// chat, never the WebSocket). It never blocks.
type ChatSink interface {
	ChatEvent(account string, p protocol.Product, kind string, data []byte)
}

// Tracker is the running Community Watch detector.
type Tracker struct {
	d   *Deps
	ref *kit.Ref
}

// QueryTimeout bounds a REST query of the tracker.
const QueryTimeout = 5 * time.Second

// StartTracker spawns the tracker, the singleton "cw", once it has loaded
// its state (see Load).
func StartTracker(ctx context.Context, k *kit.Kit, d *Deps) (*Tracker, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Syncs == nil {
		d.Syncs = NewSyncs(d.Now)
	}
	ref, err := k.Spawn(ctx, "cw", func() actor.Actor { return newTracker(d) })
	if err != nil {
		return nil, err
	}
	return &Tracker{d: d, ref: ref}, nil
}

// Hear takes the handle actors' membership, following and follower changes
// (a handle.Subscriber): it forwards those of watched handles and never
// blocks.
func (t *Tracker) Hear(change any) {
	switch c := change.(type) {
	case *handle.MembershipsChanged, *handle.FollowsChanged, *handle.FollowersAdded:
		if t.d.Registry.Watched(c.(interface{ Subject() string }).Subject()) {
			t.ref.Tell(c)
		}
	}
}

// Added makes the one-time sync of handle h for acct, which just added it
// (sync.go): it reads h's memberships off its handle actor, then waits for
// the tracker to publish the sync and hold it for the sockets, so a socket
// opened after Added returns finds it.
func (t *Tracker) Added(acct, h string) error {
	ctx, cancel := context.WithTimeout(context.Background(), QueryTimeout)
	defer cancel()
	m := &Added{Account: acct, Handle: h}
	if ms, err := t.d.Memberships(ctx, []string{h}); err == nil {
		m.Memberships, m.Known = ms[h].Memberships, ms[h].Known
	} else {
		// Not known now: the sync waits for the first list heard.
		t.d.Log.Warn("community watch: memberships at add", "handle", h, "err", err)
	}
	if _, err := kit.Ask[*AddedResult](t.ref, m, kit.WithTimeout(QueryTimeout)); err != nil {
		return fmt.Errorf("community watch sync: %w", err)
	}
	return nil
}

// TakeSyncs returns, and forgets, the one-time syncs held for acct's next
// socket about handles (the socket's list), at most MaxReplay frames.
func (t *Tracker) TakeSyncs(acct string, handles []string) []*delivery.Event {
	return t.d.Syncs.Take(acct, handles, MaxReplay)
}

// Unwatch tells the tracker that handle lost a watcher.
func (t *Tracker) Unwatch(handle string) { t.ref.Tell(&Unwatch{Handle: handle}) }

// States returns the state of each handle the tracker knows: whether it
// synced, and then its memberships, as their handle actors hold them now.
func (t *Tracker) States(handles []string) (map[string]HandleView, error) {
	r, err := kit.Ask[*QueryResult](t.ref, &Query{Handles: handles}, kit.WithTimeout(QueryTimeout))
	if err != nil {
		return nil, fmt.Errorf("community watch query: %w", err)
	}
	var synced []string
	for h, st := range r.States {
		if st.Synced {
			synced = append(synced, h)
		}
	}
	var ms map[string]handle.MembershipsView
	if len(synced) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), QueryTimeout)
		defer cancel()
		if ms, err = t.d.Memberships(ctx, synced); err != nil {
			return nil, fmt.Errorf("community watch query: %w", err)
		}
	}
	out := make(map[string]HandleView, len(r.States))
	for h, st := range r.States {
		v := HandleView{Synced: st.Synced, SyncedAt: st.SyncedAt}
		if st.Synced {
			v.Communities = st.view(ms[h].Memberships)
		}
		out[h] = v
	}
	return out, nil
}

// Stop lets the tracker finish what it was sent, then stops it.
func (t *Tracker) Stop() { _ = t.ref.Stop() }

type entry struct {
	st    HandleState
	saved []byte // the state as last persisted
}

type trackerActor struct {
	d      *Deps
	states map[string]*entry
}

func newTracker(d *Deps) *trackerActor { return &trackerActor{d: d, states: map[string]*entry{}} }

// Load reads the persisted handle states (at spawn and after a restart) and
// forgets those nobody watches any more.
func (a *trackerActor) Load(ctx context.Context) error {
	d := a.d
	stored, err := d.Store.ListWatchStates(ctx, protocol.ProductCW)
	if err != nil {
		return fmt.Errorf("load community watch state: %w", err)
	}
	var stale []string
	for _, s := range stored {
		if !d.Registry.Watched(s.Key) {
			stale = append(stale, s.Key)
			continue
		}
		st, err := decodeState(s.Data)
		if err != nil {
			return fmt.Errorf("load community watch state of %s: %w", s.Key, err)
		}
		a.states[s.Key] = &entry{st: st, saved: s.Data}
	}
	if len(stale) > 0 {
		d.Persist.Do("cw forget state", func(ctx context.Context) error {
			return d.Store.DeleteWatchStates(ctx, protocol.ProductCW, stale)
		})
	}
	return nil
}

func (a *trackerActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *handle.MembershipsChanged:
		if e := a.entry(m.Handle); e != nil {
			a.memberships(m, e)
		}
	case *handle.FollowsChanged:
		if e := a.entry(m.Handle); e != nil {
			a.following(m, e)
		}
	case *handle.FollowersAdded:
		if e := a.entry(m.Handle); e != nil {
			a.newFollowers(m)
		}
	case *Added:
		c.Respond(&AddedResult{Frames: a.added(m)})
	case *Unwatch:
		a.unwatch(m.Handle)
	case *Query:
		out := make(map[string]HandleState, len(m.Handles))
		for _, h := range m.Handles {
			if e := a.states[h]; e != nil {
				out[h] = e.st.clone()
			}
		}
		c.Respond(&QueryResult{States: out})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("community watch tracker: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

// entry returns the state of a watched handle, nil for one nobody watches
// (unwatched since Hear forwarded the change).
func (a *trackerActor) entry(h string) *entry {
	if !a.d.Registry.Watched(h) {
		return nil
	}
	e := a.states[h]
	if e == nil {
		e = &entry{}
		a.states[h] = e
	}
	return e
}

func (a *trackerActor) memberships(m *handle.MembershipsChanged, e *entry) {
	wasSynced := e.st.Synced
	var changes []Change
	e.st, changes = Apply(e.st, m)
	awaiting := e.st.Awaiting
	e.st.Awaiting = nil
	a.save(m.Handle, e)
	if len(awaiting) > 0 {
		// The accounts that added the handle before a list was known get
		// its memberships as the sync, less the joins of this list, which
		// reach them as changes below.
		ms := m.Memberships
		if wasSynced {
			ms = slices.DeleteFunc(slices.Clone(ms), func(x Membership) bool {
				return slices.ContainsFunc(changes, func(c Change) bool { return c.Kind == Joined && c.Community.ID == x.ID })
			})
		}
		accts := slices.DeleteFunc(awaiting, func(acct string) bool { return !a.d.Registry.Has(acct, m.Handle) })
		a.sync(m.Handle, accts, ms, m.At)
	}
	if len(changes) > 0 {
		a.deliverCommunity(m.Handle, changes, m.At)
	}
}

// added makes acct's one-time sync of the handle it added (sync.go) and
// returns the number of frames: now if the handle's memberships are known,
// else once the first list is heard.
func (a *trackerActor) added(m *Added) int {
	e := a.entry(m.Handle)
	if e == nil || !a.d.Registry.Has(m.Account, m.Handle) {
		return 0 // removed since
	}
	if !m.Known {
		e.st.await(m.Account)
		a.save(m.Handle, e)
		return 0
	}
	now := a.d.Now().UnixMilli()
	if !e.st.Synced {
		// The memberships known at the add are the handle's sync: later
		// lists alert their changes.
		e.st, _ = Apply(e.st, &handle.MembershipsChanged{Handle: m.Handle, Memberships: m.Memberships, At: now})
		a.save(m.Handle, e)
	}
	return a.sync(m.Handle, []string{m.Account}, m.Memberships, now)
}

// sync sends the one-time sync of memberships ms of handle h to each of
// accts: a community_joined frame per community, live to the sockets and
// held for the next one, and to the webhook under the account's settings.
// It returns the number of frames per account.
func (a *trackerActor) sync(h string, accts []string, ms []Membership, observedAt int64) int {
	if len(accts) == 0 || len(ms) == 0 {
		return 0
	}
	st := a.stamp(observedAt)
	uid, name := a.user(h)
	changes := syncChanges(ms, st.detectedAt)
	frames := make([]*delivery.Event, 0, len(changes))
	datas := make([][]byte, 0, len(changes))
	for _, c := range changes {
		data, err := communityData(name, uid, c, st)
		if err != nil {
			a.d.Log.Error("community watch: encode sync", "handle", h, "err", err)
			return 0
		}
		datas = append(datas, data)
		frames = append(frames, delivery.NewFrame(protocol.AppendTypeDataFrame(nil, FrameCommunityChange, data), h, 0))
	}
	var evs []persistence.WatchEvent
	for _, acct := range accts {
		s := a.d.Registry.Settings(acct)
		for i, c := range changes {
			if a.d.Hub != nil {
				a.d.Hub.Publish(delivery.AccountTopic(protocol.ProductCW, acct), frames[i])
			}
			if s.Deliverable(c) {
				evs = a.deliver(evs, acct, FrameCommunityChange, datas[i], watchlist.WebhookBody(FrameCommunityChange, st.detectedAt, datas[i]), st)
			}
		}
		if a.d.Syncs != nil {
			a.d.Syncs.put(acct, h, frames)
		}
	}
	a.logEvents(evs)
	return len(frames)
}

func (a *trackerActor) following(m *handle.FollowsChanged, e *entry) {
	h := m.Handle
	added := NewFollows(e.st.FollowingSynced, m)
	if !e.st.FollowingSynced {
		e.st.FollowingSynced = true
		a.save(h, e)
	}
	if len(added) == 0 {
		return
	}
	st := a.stamp(m.At)
	uid, name := a.user(h)
	accts := a.d.Registry.Watchers(h)
	var evs []persistence.WatchEvent
	for i := range added {
		data, err := followData(name, uid, &added[i], st)
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

func (a *trackerActor) newFollowers(m *handle.FollowersAdded) {
	h, users := m.Handle, m.Users
	if len(users) == 0 {
		return
	}
	st := a.stamp(m.At)
	var data, body []byte
	var evs []persistence.WatchEvent
	for _, acct := range a.d.Registry.Watchers(h) {
		if it, ok := a.d.Registry.Item(acct, h); !ok || !it.Opts.NewFollowers {
			continue
		}
		if data == nil {
			var err error
			uid, name := a.user(h)
			if data, err = newFollowersData(name, uid, users, st); err != nil {
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
	uid, name := a.user(h)
	accts := a.d.Registry.Watchers(h)
	var evs []persistence.WatchEvent
	for _, c := range changes {
		if !Streamed(c) {
			continue
		}
		data, err := communityData(name, uid, c, st)
		if err != nil {
			a.d.Log.Error("community watch: encode change", "handle", h, "err", err)
			continue
		}
		ev := delivery.NewFrame(protocol.AppendTypeDataFrame(nil, FrameCommunityChange, data), h, 0)
		var body []byte
		for _, acct := range accts {
			if a.d.Hub != nil {
				a.d.Hub.Publish(delivery.AccountTopic(protocol.ProductCW, acct), ev)
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
	if a.d.Chat != nil && (kind == EventFollowChange || kind == EventNewFollowers) {
		a.d.Chat.ChatEvent(acct, protocol.ProductCW, kind, data)
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

// stamp is now on the tracker's clock, for a change detected at observedAt.
func (a *trackerActor) stamp(observedAt int64) stamp {
	return stamp{detectedAt: a.d.Now().UnixMilli(), observedAt: observedAt}
}

// user is handle h's platform user id (nil when unknown) and its screen_name
// as the platform spells it (h, the key, when unknown).
func (a *trackerActor) user(h string) (id *string, screenName string) {
	if a.d.Dir == nil {
		return nil, h
	}
	if e, ok := a.d.Dir.ByHandle(h); ok {
		id := e.User.ID
		return &id, e.User.Display()
	}
	return nil, h
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
	if a.d.Registry.Watched(h) {
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
