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
	"github.com/asynkron/protoactor-go/actor"
)

// Jobs runs store writes in queue order off the caller's goroutine; the
// store writer (actors/writer) is one.
type Jobs interface {
	Do(name string, f func(ctx context.Context) error)
}

// joiner is Jobs whose writes may share the store writer's batch
// transaction (actors/writer.Writer.Join): the lookups' store methods write
// only through the store's transactions, and one commit per batch instead
// of one per kind is what the writer saves under ingest.
type joiner interface {
	Join(name string, f func(ctx context.Context) error)
}

// Options tune the recorder.
type Options struct {
	// Interval: what waits is handed to the writer at least this often
	// (default 50ms).
	Interval time.Duration
	// MaxBatch: ... or as soon as this many rows wait (default 1000).
	MaxBatch int
	Log      *slog.Logger
}

// Recorder is the handle of the recorder actor: the handle actors' changes
// feed it (Hear), Stop ends it.
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
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	ref, err := k.Spawn(context.Background(), "b2b", func() actor.Actor {
		return &recorder{store: store, jobs: jobs, opt: opt}
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

// Hear takes the changes the recorder keeps (a handle.Subscriber): profiles
// (count history), following and followers (edges and their changes),
// memberships, engagement, and the counts of re-observed posts (a new
// post's counts are in the post itself). It never blocks.
func (r *Recorder) Hear(change any) {
	switch c := change.(type) {
	case *handle.PostSeen:
		if !c.New {
			r.ref.Tell(c)
		}
	case *handle.ProfileChanged, *handle.FollowsChanged, *handle.FollowersAdded, *handle.MembershipsChanged, *handle.EngagementChanged:
		r.ref.Tell(c)
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

// Stop flushes and ends the recorder. Call it once the handle actors have
// stopped and before the writer stops.
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
	following  []persistence.FollowEdgeUpdate
	followers  []persistence.FollowersSeen
	lists      []persistence.HandleCommunityList
	waiting    int
}

func ms(at int64) time.Time { return time.UnixMilli(at).UTC() }

func (a *recorder) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *handle.ProfileChanged:
		a.history = append(a.history, ProfileRow(m.New, ms(m.At)))
	case *handle.EngagementChanged:
		a.engagement = append(a.engagement, EngagementRow(m.Counts, ms(m.At)))
	case *handle.PostSeen:
		row, ok := PostMetricsRow(m.Obs.Post, ms(m.Obs.DetectedAt))
		if !ok {
			return
		}
		a.engagement = append(a.engagement, row)
	case *handle.FollowsChanged:
		u := FollowingUpdate(m)
		a.following = append(a.following, u)
		a.waiting += len(u.Upserts)
	case *handle.FollowersAdded:
		a.followers = append(a.followers, FollowersSeen(m))
		a.waiting += len(m.Users)
	case *handle.MembershipsChanged:
		a.lists = append(a.lists, persistence.HandleCommunityList{Handle: m.Handle, List: Memberships(m.Memberships), At: ms(m.At)})
		a.waiting += len(m.Memberships)
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

// flush hands what waits to the writer: one job per kind, in the order
// received within a kind, each one transaction or joining the writer's.
func (a *recorder) flush() {
	store := a.store
	do := a.jobs.Do
	if j, ok := a.jobs.(joiner); ok {
		do = j.Join
	}
	if rows := a.history; len(rows) > 0 {
		do("lookups profile history", func(ctx context.Context) error { return store.AppendProfileHistory(ctx, rows) })
	}
	if rows := a.engagement; len(rows) > 0 {
		do("lookups engagement", func(ctx context.Context) error { return store.PutLatestEngagement(ctx, rows) })
	}
	if ups := a.following; len(ups) > 0 {
		do("lookups following", func(ctx context.Context) error { return store.ApplyFollowEdges(ctx, ups) })
	}
	if batch := a.followers; len(batch) > 0 {
		do("lookups followers", func(ctx context.Context) error { return store.AddFollowers(ctx, batch) })
	}
	if lists := a.lists; len(lists) > 0 {
		do("lookups communities", func(ctx context.Context) error { return store.ApplyHandleCommunities(ctx, lists) })
	}
	a.history, a.engagement, a.following, a.followers, a.lists, a.waiting = nil, nil, nil, nil, nil, 0
}
