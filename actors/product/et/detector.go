package et

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/productsock"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// Registry is the Engagement Tracker's accounts: post ids, no settings.
type Registry = watchlist.Registry[struct{}, struct{}]

// NewRegistry returns the Engagement Tracker registry over store.
func NewRegistry(store persistence.WatchStore, now func() time.Time) *Registry {
	return watchlist.New[struct{}, struct{}](protocol.ProductET, store, func() struct{} { return struct{}{} }, now)
}

// Deps are what the detector works with.
type Deps struct {
	Registry *Registry
	Sockets  *productsock.Hub
	Webhooks cw.Webhooks // nil: none
	Persist  cw.Persister
	Store    persistence.WatchStore
	Log      *slog.Logger
}

// Messages of the detector.
type (
	// Observe hands it an engagement observation of a tracked post.
	Observe struct{ Obs *protocol.Observation }
	// Unwatch: a post lost a tracker; it is forgotten once none is left.
	Unwatch struct{ TweetID string }
	// Query asks for a post's counts; the answer is *QueryResult.
	Query struct{ TweetID string }
	// QueryResult: Known is false before the first observation.
	QueryResult struct {
		State State
		Known bool
	}
)

// Detector is the running Engagement Tracker.
type Detector struct {
	d    *Deps
	root *actor.RootContext
	pid  *actor.PID
}

// StartDetector loads the last counts of tracked posts and spawns the
// detector.
func StartDetector(ctx context.Context, system *actor.ActorSystem, d *Deps) (*Detector, error) {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	stored, err := d.Store.ListWatchStates(ctx, protocol.ProductET)
	if err != nil {
		return nil, fmt.Errorf("load engagement state: %w", err)
	}
	a := &detector{d: d, posts: make(map[string]State, len(stored))}
	var stale []string
	for _, s := range stored {
		if !d.Registry.Watched(s.Key) {
			stale = append(stale, s.Key)
			continue
		}
		var st State
		if err := json.Unmarshal(s.Data, &st); err != nil {
			return nil, fmt.Errorf("load engagement state of %s: %w", s.Key, err)
		}
		a.posts[s.Key] = st
	}
	if len(stale) > 0 {
		d.Persist.Do("et forget state", func(ctx context.Context) error {
			return d.Store.DeleteWatchStates(ctx, protocol.ProductET, stale)
		})
	}
	det := &Detector{d: d, root: system.Root}
	det.pid = system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return a }))
	return det, nil
}

// Observe is the tap of engagement observations: it forwards those of
// tracked posts and never blocks.
func (t *Detector) Observe(o *protocol.Observation) {
	if o.Engagement == nil || !t.d.Registry.Watched(o.Engagement.TweetID) {
		return
	}
	t.root.Send(t.pid, &Observe{Obs: o})
}

// Unwatch tells the detector that a post lost a tracker.
func (t *Detector) Unwatch(tweetID string) { t.root.Send(t.pid, &Unwatch{TweetID: tweetID}) }

// Engagement returns a post's last counts; known is false before the first
// observation.
func (t *Detector) Engagement(tweetID string) (st State, known bool, err error) {
	res, err := t.root.RequestFuture(t.pid, &Query{TweetID: tweetID}, cw.QueryTimeout).Result()
	if err != nil {
		return State{}, false, fmt.Errorf("engagement query: %w", err)
	}
	r, ok := res.(*QueryResult)
	if !ok {
		return State{}, false, errors.New("engagement query: unexpected answer")
	}
	return r.State, r.Known, nil
}

// Stop lets the detector finish what it was sent, then stops it.
func (t *Detector) Stop() { _ = t.root.PoisonFuture(t.pid).Wait() }

// PID is the actor's address (engine.Sync sends it a round trip).
func (t *Detector) PID() *actor.PID { return t.pid }

type detector struct {
	d     *Deps
	posts map[string]State
}

func (a *detector) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *Observe:
		a.observe(m.Obs)
	case *Unwatch:
		if _, ok := a.posts[m.TweetID]; ok && !a.d.Registry.Watched(m.TweetID) {
			delete(a.posts, m.TweetID)
			store, id := a.d.Store, m.TweetID
			a.d.Persist.Do("et forget state", func(ctx context.Context) error {
				return store.DeleteWatchStates(ctx, protocol.ProductET, []string{id})
			})
		}
	case *Query:
		st, ok := a.posts[m.TweetID]
		c.Respond(&QueryResult{State: st, Known: ok})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Touch: // Touch: engine.Sync; protoactor answers it
	default:
		a.d.Log.Warn("engagement detector: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

func (a *detector) observe(o *protocol.Observation) {
	id := o.Engagement.TweetID
	if !a.d.Registry.Watched(id) {
		return
	}
	prev, known := a.posts[id]
	next, changed := Compare(prev, known, CountsOf(o.Engagement), o.DetectedAt)
	if known && !changed {
		return
	}
	a.posts[id] = next
	a.save(id, next)
	if !changed {
		return
	}
	frame, body, err := Encode(&Update{TweetID: id, Old: prev.Counts, New: next.Counts})
	if err != nil {
		a.d.Log.Error("engagement: encode", "tweet_id", id, "err", err)
		return
	}
	for _, acct := range a.d.Registry.Watchers(id) {
		if a.d.Sockets != nil {
			a.d.Sockets.Publish(acct, id, frame)
		}
		if a.d.Webhooks != nil {
			a.d.Webhooks.Send(acct, body)
		}
	}
}

func (a *detector) save(id string, st State) {
	data, err := json.Marshal(&st)
	if err != nil {
		a.d.Log.Error("engagement: encode state", "tweet_id", id, "err", err)
		return
	}
	rec := persistence.WatchState{Product: protocol.ProductET, Key: id, Data: data, UpdatedAt: time.UnixMilli(st.UpdatedAt).UTC()}
	store := a.d.Store
	a.d.Persist.Do("et state", func(ctx context.Context) error {
		return store.PutWatchStates(ctx, []persistence.WatchState{rec})
	})
}
