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
	// posts remembers published posts of this handle, so a re-observation
	// keeps the first detected_at and is judged for social.post.update.
	posts map[string]postState
	// following is the last complete following list (nil before the first).
	following   map[string]protocol.FollowUser
	followOrder []string
}

func newHandleActor(h string, d *Deps) *handleActor {
	return &handleActor{handle: h, d: d, posts: map[string]postState{}}
}

func (a *handleActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *Observe:
		a.observe(m.Obs)
		a.d.handled()
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("handle actor: unexpected message", "handle", a.handle, "type", typeName(m))
	}
}

func (a *handleActor) observe(o *protocol.Observation) {
	defer a.d.Taps.fire(o)
	at := time.UnixMilli(o.DetectedAt).UTC()
	switch o.Kind {
	case protocol.KindPost:
		t := o.Post
		first := o.DetectedAt
		prev, seen := a.posts[t.ID]
		if seen {
			first = prev.firstSeen
			a.derivePost(o, first, &prev)
		} else {
			a.derivePost(o, first, nil)
		}
		st := statePost(t, first)
		if seen { // keep the richest version seen, so an update is sent once
			st.hasContext = st.hasContext || prev.hasContext
			st.hasOCR = st.hasOCR || prev.hasOCR
			st.textLen = max(st.textLen, prev.textLen)
		}
		a.posts[t.ID] = st
		a.trimPosts()
		data, err := json.Marshal(t)
		if err != nil {
			a.d.Log.Error("encode post", "id", t.ID, "err", err)
			return
		}
		a.d.Writer.Post(persistence.Post{ID: t.ID, Handle: a.handle, CreatedAt: time.UnixMilli(t.CreatedAt).UTC(),
			DetectedAt: time.UnixMilli(first).UTC(), Data: data})
		a.d.Taps.firePost(o, first, !seen)
		return
	case protocol.KindFollowing, protocol.KindCommunities:
		if o.Kind == protocol.KindFollowing {
			a.deriveFollowing(o)
		}
		a.d.Writer.Snapshot(persistence.Snapshot{Handle: a.handle, Kind: o.Kind, Data: o.Raw, ObservedAt: at})
	case protocol.KindPostDeleted:
		a.deriveDeleted(o)
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw, DetectedAt: at})
	case protocol.KindFollowersNew:
		a.deriveFollowers(o)
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw, DetectedAt: at})
	}
}

// maxPosts bounds the per-handle memory of post ids.
const maxPosts = 4096

// trimPosts forgets the oldest half once the map is full. A re-observation of
// a forgotten post is published as new again: rare, and better than loss.
func (a *handleActor) trimPosts() {
	if len(a.posts) <= maxPosts {
		return
	}
	ts := make([]int64, 0, len(a.posts))
	for _, p := range a.posts {
		ts = append(ts, p.firstSeen)
	}
	sortInt64(ts)
	cut := ts[len(ts)-maxPosts/2-1]
	for id, p := range a.posts {
		if p.firstSeen <= cut {
			delete(a.posts, id)
		}
	}
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
		defer a.d.handled()
		o := m.Obs
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw,
			DetectedAt: time.UnixMilli(o.DetectedAt).UTC()})
		a.d.Taps.fire(o)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("feed actor: unexpected message", "key", a.key, "type", typeName(m))
	}
}
