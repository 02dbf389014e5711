package handle

import (
	"context"
	"time"

	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/internal/stageclock"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// handleActor owns one handle's state.
type handleActor struct {
	entity
	handle string
	d      *Deps
	State
	ingestedAt int64 // of the observation being handled: its events' latency clock
}

func newHandleActor(h string, d *Deps, e entity) *handleActor {
	return &handleActor{entity: e, handle: h, d: d, State: newState()}
}

func (a *handleActor) Receive(c actor.Context) {
	defer kit.CapturePanic()
	if lc, started := a.lifecycle(c); lc {
		if started {
			a.load()
		}
		return
	}
	defer a.release()
	switch m := c.Message().(type) {
	case *Observe:
		defer a.observed(m.Obs)
		a.ingestedAt = m.Obs.IngestedAt
		stageclock.Mark(a.ingestedAt, stageclock.Received)
		a.observe(m.Obs)
	case *RenamedTo:
		a.handOver(m.Handle)
	case *adopt:
		a.adopt(m)
	case *QueryMemberships:
		c.Respond(&MembershipsView{Memberships: a.memberships, Known: a.membershipsKnown})
	default:
		a.d.Log.Warn("handle actor: unexpected message", "handle", a.handle, "type", typeName(m))
	}
}

// load fills the state from the store (Deps.Loader) as the actor starts.
func (a *handleActor) load() {
	if a.d.Loader == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), LoadTimeout)
	defer cancel()
	if err := a.d.Loader.LoadHandle(ctx, a.handle, &a.State); err != nil {
		a.d.Log.Error("handle actor: state not reloaded; going on with what loaded", "handle", a.handle, "err", err)
	}
}

func (a *handleActor) observe(o *protocol.Observation) {
	at := time.UnixMilli(o.DetectedAt).UTC()
	switch o.Kind {
	case protocol.KindPost:
		a.observePost(o)
	case protocol.KindFollowing:
		c := a.deriveFollowing(o)
		a.d.Writer.Snapshot(persistence.Snapshot{Handle: a.handle, Kind: o.Kind, Data: o.Raw, ObservedAt: at})
		publish(a.subs().FollowsChanged, c)
	case protocol.KindCommunities:
		c := a.deriveMemberships(o)
		if data, err := encodeMemberships(a.handle, a.memberships); err != nil {
			a.d.Log.Error("handle actor: encode memberships", "handle", a.handle, "err", err)
		} else {
			a.d.Writer.Snapshot(persistence.Snapshot{Handle: a.handle, Kind: o.Kind, Data: data, ObservedAt: at})
		}
		publish(a.subs().MembershipsChanged, c)
	case protocol.KindPostDeleted:
		a.deriveDeleted(o)
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw, DetectedAt: at})
		if subs := a.subs().PostDeleted; len(subs) > 0 {
			publish(subs, &PostDeleted{Handle: a.handle, Obs: o})
		}
	case protocol.KindFollowersNew:
		a.deriveFollowers(o)
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw, DetectedAt: at})
		if subs := a.subs().FollowersAdded; len(subs) > 0 {
			publish(subs, &FollowersAdded{Handle: a.handle, Users: o.FollowersNew.Users, At: o.DetectedAt})
		}
	}
}

// observePost remembers a post, publishes its events, persists it and
// tells the products.
func (a *handleActor) observePost(o *protocol.Observation) {
	t := o.Post
	first := o.DetectedAt
	prev, seen := a.posts[t.ID]
	var reason UpdateReason
	if seen {
		first = prev.firstSeen
		reason = updateReason(prev, t)
	}
	a.derivePost(o, first, seen, reason)
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
	if subs := a.subs().PostSeen; len(subs) > 0 {
		redrive := seen && prev.loaded && o.Replayed // see PostSeen.New
		publish(subs, &PostSeen{Handle: a.handle, Obs: o, FirstSeen: first, New: !seen || redrive, Update: reason, Replayed: redrive})
	}
}

func (a *handleActor) subs() *Subscriptions {
	if a.d.Subs == nil {
		return &noSubscriptions
	}
	return a.d.Subs
}

var noSubscriptions Subscriptions

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
	entity
	key string
	d   *Deps
}

func newFeedActor(key string, d *Deps, e entity) *feedActor {
	return &feedActor{entity: e, key: key, d: d}
}

func (a *feedActor) Receive(c actor.Context) {
	defer kit.CapturePanic()
	if lc, _ := a.lifecycle(c); lc {
		return
	}
	defer a.release()
	switch m := c.Message().(type) {
	case *Observe:
		defer a.observed(m.Obs)
		o := m.Obs
		a.d.Writer.Observation(persistence.ObservationRecord{Kind: o.Kind, Key: o.Key, Data: o.Raw,
			DetectedAt: time.UnixMilli(o.DetectedAt).UTC()})
		a.publish(o)
	default:
		a.d.Log.Warn("feed actor: unexpected message", "feed", a.key, "type", typeName(m))
	}
}

// publish tells the feed's products: engagement as *EngagementChanged, the
// other kinds as *Observed.
func (a *feedActor) publish(o *protocol.Observation) {
	if o.Kind == protocol.KindEngagement {
		if a.d.Subs != nil && len(a.d.Subs.EngagementChanged) > 0 && o.Engagement != nil {
			publish(a.d.Subs.EngagementChanged, &EngagementChanged{Counts: o.Engagement, At: o.DetectedAt})
		}
		return
	}
	if subs := a.d.Subs.feed(o.Kind); len(subs) > 0 {
		publish(subs, &Observed{Obs: o})
	}
}
