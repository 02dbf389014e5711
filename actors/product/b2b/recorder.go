package b2b

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Jobs runs store writes in queue order off the caller's goroutine; the
// store writer (actors/writer) is one.
type Jobs interface {
	Do(name string, f func(ctx context.Context) error)
}

// Options tune the recorder.
type Options struct {
	// Interval: what waits is handed to the writer at least this often
	// (default 50ms).
	Interval time.Duration
	// MaxBatch: ... or as soon as this many rows wait (default 1000).
	MaxBatch int
	// CacheEdges bounds the edges of the lists kept in memory between
	// observations (default 200,000).
	CacheEdges int
	Log        *slog.Logger
}

// Recorder is the handle of the recorder actor: the taps feed it, Stop ends it.
type Recorder struct {
	ref  *kit.Ref
	stop chan struct{} // ends the ticker goroutine
	done chan struct{} // closed when it has ended
	once sync.Once
}

// Start spawns the recorder, the singleton "b2b", over store, writing
// through jobs. It keeps nothing but rows on their way to the writer: a
// restart drops those of the last interval.
func Start(k *kit.Kit, store persistence.LookupStore, jobs Jobs, opt Options) (*Recorder, error) {
	if opt.Interval <= 0 {
		opt.Interval = 50 * time.Millisecond
	}
	if opt.MaxBatch <= 0 {
		opt.MaxBatch = 1000
	}
	if opt.CacheEdges <= 0 {
		opt.CacheEdges = 200_000
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	ref, err := k.Spawn(context.Background(), "b2b", func() actor.Actor {
		return &recorder{store: store, jobs: jobs, opt: opt, cache: newEdgeCache(opt.CacheEdges)}
	})
	if err != nil {
		return nil, err
	}
	r := &Recorder{ref: ref, stop: make(chan struct{}), done: make(chan struct{})}
	go r.tick(opt.Interval)
	return r, nil
}

// tick asks the actor to flush every interval until Stop.
func (r *Recorder) tick(interval time.Duration) {
	defer close(r.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.ref.Tell(&tick{})
		case <-r.stop:
			return
		}
	}
}

// Register hooks the recorder to the observations it keeps.
func (r *Recorder) Register(taps *handle.Taps) {
	taps.On(protocol.KindUser, r.ObserveUser)
	taps.On(protocol.KindFollowing, r.ObserveFollowing)
	taps.On(protocol.KindFollowersNew, r.ObserveFollowersNew)
	taps.On(protocol.KindCommunities, r.ObserveCommunities)
	taps.On(protocol.KindEngagement, r.ObserveEngagement)
	taps.OnPost(r.ObservePost)
}

func at(o *protocol.Observation) time.Time { return time.UnixMilli(o.DetectedAt).UTC() }

// ObserveUser keeps the counts of a user snapshot.
func (r *Recorder) ObserveUser(o *protocol.Observation) {
	r.ref.Tell(&UserSeen{Row: ProfileRow(o.User, at(o))})
}

// ObserveFollowing keeps a complete following list.
func (r *Recorder) ObserveFollowing(o *protocol.Observation) {
	r.ref.Tell(&EdgesSeen{Handle: o.Key, Relation: persistence.RelationFollowing,
		Seen: FollowingSeen(o.Following.Users), Complete: true, At: at(o)})
}

// ObserveFollowersNew keeps new followers.
func (r *Recorder) ObserveFollowersNew(o *protocol.Observation) {
	r.ref.Tell(&EdgesSeen{Handle: o.Key, Relation: persistence.RelationFollower,
		Seen: FollowersSeen(o.FollowersNew.Users), At: at(o)})
}

// ObserveCommunities keeps a complete membership.
func (r *Recorder) ObserveCommunities(o *protocol.Observation) {
	r.ref.Tell(&CommunitiesSeen{Handle: o.Key, List: Memberships(o.Communities.Communities), At: at(o)})
}

// ObserveEngagement keeps the counts of an engagement observation.
func (r *Recorder) ObserveEngagement(o *protocol.Observation) {
	r.ref.Tell(&EngagementSeen{Row: EngagementRow(o.Engagement, at(o))})
}

// ObservePost keeps the counts of a re-observed post (a new post's counts
// are in the post itself).
func (r *Recorder) ObservePost(o *protocol.Observation, _ int64, isNew bool) {
	if isNew {
		return
	}
	if row, ok := PostMetricsRow(o.Post, at(o)); ok {
		r.ref.Tell(&EngagementSeen{Row: row})
	}
}

// Flush hands everything received so far to the writer.
func (r *Recorder) Flush(ctx context.Context) error {
	d := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		d = time.Until(dl)
	}
	_, err := kit.Ask[*Flushed](r.ref, &Flush{}, kit.WithTimeout(d))
	return err
}

// Stop flushes and ends the recorder. Call it once the taps are quiet (the
// handle actors stopped) and before the writer stops.
func (r *Recorder) Stop() {
	r.once.Do(func() {
		close(r.stop)
		<-r.done
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Flush(ctx)
		_ = r.ref.Stop()
	})
}

// recorder batches rows and hands them to the writer.
type recorder struct {
	store      persistence.LookupStore
	jobs       Jobs
	opt        Options
	history    []persistence.ProfileCounts
	engagement []persistence.LatestEngagement
	edges      []*EdgesSeen
	cache      *edgeCache // used by the jobs only
	lists      []persistence.HandleCommunityList
	waiting    int
}

func (a *recorder) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *UserSeen:
		a.history = append(a.history, m.Row)
	case *EngagementSeen:
		a.engagement = append(a.engagement, m.Row)
	case *EdgesSeen:
		a.edges = append(a.edges, m)
		a.waiting += len(m.Seen)
	case *CommunitiesSeen:
		a.lists = append(a.lists, persistence.HandleCommunityList{Handle: m.Handle, List: m.List, At: m.At})
		a.waiting += len(m.List)
	case *tick:
		a.flush()
		return
	case *Flush:
		a.flush()
		c.Respond(&Flushed{})
		return
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
		return
	default:
		a.opt.Log.Warn("lookups recorder: unexpected message", "type", fmt.Sprintf("%T", m))
		return
	}
	a.waiting++
	if a.waiting >= a.opt.MaxBatch {
		a.flush()
	}
}

// flush hands what waits to the writer: one job per kind, each one
// transaction, in the order received within a kind.
func (a *recorder) flush() {
	if rows := a.history; len(rows) > 0 {
		a.jobs.Do("lookups profile history", func(ctx context.Context) error { return a.store.AppendProfileHistory(ctx, rows) })
	}
	if rows := a.engagement; len(rows) > 0 {
		a.jobs.Do("lookups engagement", func(ctx context.Context) error { return a.store.PutLatestEngagement(ctx, rows) })
	}
	if batch := a.edges; len(batch) > 0 {
		a.jobs.Do("lookups follow edges", func(ctx context.Context) error { return applyEdges(ctx, a.store, a.cache, batch) })
	}
	if lists := a.lists; len(lists) > 0 {
		a.jobs.Do("lookups communities", func(ctx context.Context) error { return a.store.ApplyHandleCommunities(ctx, lists) })
	}
	a.history, a.engagement, a.edges, a.lists, a.waiting = nil, nil, nil, nil, 0
}

// applyEdges diffs a batch of observations against the stored edges and
// writes the result in one transaction. Each list is read once (whole when
// a complete list is in the batch, from the cache when it holds it, else
// just the accounts named), and the observations of one list diff in order
// against what the previous ones left. It runs on the writer, one job at a
// time, so nothing else writes the edges between the read and the write.
func applyEdges(ctx context.Context, store persistence.LookupStore, cache *edgeCache, batch []*EdgesSeen) (err error) {
	defer func() {
		if err != nil {
			cache.clear() // the store may hold less than the cache thinks
		}
	}()
	type need struct {
		all bool
		ids []string
	}
	needs := map[edgeKey]*need{}
	var order []edgeKey
	for _, m := range batch {
		k := edgeKey{m.Handle, m.Relation}
		n := needs[k]
		if n == nil {
			n = &need{ids: []string{}}
			needs[k] = n
			order = append(order, k)
		}
		if m.Complete {
			n.all = true
		}
		for _, s := range m.Seen {
			n.ids = append(n.ids, s.ID)
		}
	}
	sets := make(map[edgeKey]persistence.FollowEdgeSet, len(order))
	for _, k := range order {
		only := needs[k].ids
		if needs[k].all {
			if set, ok := cache.get(k); ok {
				sets[k] = set
				continue
			}
			only = nil
		}
		set, err := store.FollowEdges(ctx, k.handle, k.relation, only)
		if err != nil {
			return err
		}
		sets[k] = set
	}
	updates := make([]persistence.FollowEdgeUpdate, 0, len(batch))
	for _, m := range batch {
		k := edgeKey{m.Handle, m.Relation}
		u := DiffEdges(m.Handle, m.Relation, sets[k], m.Seen, m.Complete, m.At)
		updates = append(updates, u)
		sets[k] = AdvanceSet(sets[k], u)
	}
	if err := store.ApplyFollowEdges(ctx, updates); err != nil {
		return err
	}
	for _, k := range order {
		if needs[k].all {
			cache.put(k, sets[k])
		} else {
			cache.drop(k) // a partial set is not the whole list
		}
	}
	return nil
}
