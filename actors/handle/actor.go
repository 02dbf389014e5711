// Package handle holds the actors that own monitored subjects: one actor per
// platform handle (posts, follows, communities of that handle), one per
// platform user id (profile snapshots, which survive renames), and a few feed actors for subjects that are not handles (engagement, trending,
// launchpad). Each receives its observations in order and persists them
// through the batched writer; deriving events from them builds on this.
package handle

import (
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// handleActor owns one handle's state.
type handleActor struct {
	handle string
	d      *Deps
	// firstSeen maps post ids of this handle to their first detection time,
	// so a re-observation keeps the original detected_at.
	firstSeen map[string]int64
}

func newHandleActor(h string, d *Deps) *handleActor {
	return &handleActor{handle: h, d: d, firstSeen: map[string]int64{}}
}

func (a *handleActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *Observe:
		a.observe(m.Obs)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("handle actor: unexpected message", "handle", a.handle, "type", typeName(m))
	}
}

func (a *handleActor) observe(o *protocol.Observation) {
	at := time.UnixMilli(o.DetectedAt).UTC()
	switch o.Kind {
	case protocol.KindPost:
		t := o.Post
		first, ok := a.firstSeen[t.ID]
		if !ok {
			first = o.DetectedAt
			a.firstSeen[t.ID] = first
			a.trimSeen()
		}
		data, err := json.Marshal(t)
		if err != nil {
			a.d.Log.Error("encode post", "id", t.ID, "err", err)
			return
		}
		a.d.Writer.Post(persistence.Post{ID: t.ID, Handle: a.handle, CreatedAt: time.UnixMilli(t.CreatedAt).UTC(),
			DetectedAt: time.UnixMilli(first).UTC(), Data: data})
	case protocol.KindFollowing, protocol.KindCommunities:
		a.d.Writer.Snapshot(persistence.Snapshot{Handle: a.handle, Kind: o.Kind, Data: o.Raw, ObservedAt: at})
	default: // post_deleted, followers_new
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw, DetectedAt: at})
	}
}

// maxSeen bounds the per-handle memory of post ids.
const maxSeen = 4096

func (a *handleActor) trimSeen() {
	if len(a.firstSeen) <= maxSeen {
		return
	}
	// Drop the oldest half; re-observations of very old posts are rare and
	// only cost an exact detected_at, which the store keeps anyway.
	cut := oldestCut(a.firstSeen, maxSeen/2)
	for id, ts := range a.firstSeen {
		if ts <= cut {
			delete(a.firstSeen, id)
		}
	}
}

func oldestCut(m map[string]int64, keep int) int64 {
	ts := make([]int64, 0, len(m))
	for _, v := range m {
		ts = append(ts, v)
	}
	// nth element: a partial selection is enough, but a sort is simple and rare.
	sortInt64(ts)
	return ts[len(ts)-keep-1]
}

// feedActor owns observations that are not bound to a handle.
type feedActor struct {
	key string
	d   *Deps
}

func newFeedActor(key string, d *Deps) *feedActor { return &feedActor{key: key, d: d} }

func (a *feedActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *Observe:
		o := m.Obs
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw,
			DetectedAt: time.UnixMilli(o.DetectedAt).UTC()})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("feed actor: unexpected message", "key", a.key, "type", typeName(m))
	}
}
