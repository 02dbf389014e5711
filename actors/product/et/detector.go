package et

import (
	"context"
	"fmt"
	"log/slog"
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

// Registry is the Engagement Tracker's accounts: post ids, no settings.
type Registry = watchlist.Registry[struct{}, struct{}]

// NewRegistry returns the Engagement Tracker registry over store.
func NewRegistry(store persistence.WatchStore, now func() time.Time) *Registry {
	return watchlist.New[struct{}, struct{}](protocol.ProductET, store, func() struct{} { return struct{}{} }, now)
}

// Deps are what the detector works with.
type Deps struct {
	Registry *Registry
	Hub      *delivery.Hub // the sockets hear the accounts' topics; nil: none
	Webhooks cw.Webhooks   // nil: none
	Persist  cw.Persister
	Store    persistence.WatchStore
	Log      *slog.Logger
}

// Messages of the detector (it also takes *handle.EngagementChanged of the
// posts it tracks).
type (
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
	d   *Deps
	ref *kit.Ref
}

// StartDetector spawns the detector, the singleton "et", once it has loaded
// the last counts of tracked posts (see Load).
func StartDetector(ctx context.Context, k *kit.Kit, d *Deps) (*Detector, error) {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	ref, err := k.Spawn(ctx, "et", func() actor.Actor { return &detector{d: d, posts: map[string]State{}} })
	if err != nil {
		return nil, err
	}
	return &Detector{d: d, ref: ref}, nil
}

// Hear takes the engagement feed's changes (a handle.Subscriber): it
// forwards those of tracked posts and never blocks.
func (t *Detector) Hear(change any) {
	if c, ok := change.(*handle.EngagementChanged); ok && t.d.Registry.Watched(c.Counts.TweetID) {
		t.ref.Tell(c)
	}
}

// Unwatch tells the detector that a post lost a tracker.
func (t *Detector) Unwatch(tweetID string) { t.ref.Tell(&Unwatch{TweetID: tweetID}) }

// Engagement returns a post's last counts; known is false before the first
// observation.
func (t *Detector) Engagement(tweetID string) (st State, known bool, err error) {
	r, err := kit.Ask[*QueryResult](t.ref, &Query{TweetID: tweetID}, kit.WithTimeout(cw.QueryTimeout))
	if err != nil {
		return State{}, false, fmt.Errorf("engagement query: %w", err)
	}
	return r.State, r.Known, nil
}

// Stop lets the detector finish what it was sent, then stops it.
func (t *Detector) Stop() { _ = t.ref.Stop() }

type detector struct {
	d     *Deps
	posts map[string]State
}

// Load reads the last counts of tracked posts (at spawn and after a
// restart) and forgets those of posts nobody tracks any more.
func (a *detector) Load(ctx context.Context) error {
	d := a.d
	stored, err := d.Store.ListWatchStates(ctx, protocol.ProductET)
	if err != nil {
		return fmt.Errorf("load engagement state: %w", err)
	}
	var stale []string
	for _, s := range stored {
		if !d.Registry.Watched(s.Key) {
			stale = append(stale, s.Key)
			continue
		}
		var st State
		if err := json.Unmarshal(s.Data, &st); err != nil {
			return fmt.Errorf("load engagement state of %s: %w", s.Key, err)
		}
		a.posts[s.Key] = st
	}
	if len(stale) > 0 {
		d.Persist.Do("et forget state", func(ctx context.Context) error {
			return d.Store.DeleteWatchStates(ctx, protocol.ProductET, stale)
		})
	}
	return nil
}

func (a *detector) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *handle.EngagementChanged:
		a.observe(m)
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
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("engagement detector: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

// observe judges new counts against the post's baseline: the Engagement
// Tracker owns the baselines of the posts it tracks (handle's package doc,
// "Engagement").
func (a *detector) observe(c *handle.EngagementChanged) {
	id := c.Counts.TweetID
	if !a.d.Registry.Watched(id) {
		return
	}
	prev, known := a.posts[id]
	next, changed := Compare(prev, known, CountsOf(c.Counts), c.At)
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
	ev := delivery.NewFrame(frame, id, 0)
	for _, acct := range a.d.Registry.Watchers(id) {
		if a.d.Hub != nil {
			a.d.Hub.Publish(delivery.AccountTopic(protocol.ProductET, acct), ev)
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
