package handle

import (
	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
)

// publish hands e to the subscribers of the actor's handle.
func (a *handleActor) publish(e *delivery.Event) {
	if a.d.Hub != nil {
		e.IngestedAt = a.ingestedAt
		a.d.Hub.Publish(delivery.HandleTopic(a.handle), e)
	}
}

func (a *handleActor) nonPost(kind protocol.EventKind, at int64, taskID string, data []byte) *delivery.Event {
	return &delivery.Event{
		Meta:      protocol.NonPostMeta(kind, a.d.Dir.Categories(a.handle)),
		Header:    protocol.EventHeader{Kind: kind, EventID: protocol.EventID(kind, a.handle, at), EventTime: at, Handle: a.handle, TaskID: taskID},
		Data:      data,
		CreatedAt: at, DetectedAt: at,
	}
}

// derivePost publishes social.post.new the first time a post id is seen, and
// social.post.update when a re-observation adds context (rule 5; r says why).
func (a *handleActor) derivePost(o *protocol.Observation, first int64, seen bool, r UpdateReason) {
	t := o.Post
	kind := protocol.EventKindPostNew
	ocrOnly := false
	if seen {
		if r == UpdateNone {
			return
		}
		kind, ocrOnly = protocol.EventKindPostUpdate, r == UpdateOCR
	}
	age := first - t.CreatedAt
	late := age > a.d.Timings.RealtimeMaxAge.Milliseconds()
	if age > a.d.Timings.LateMaxAge.Milliseconds() {
		return // older than any stream delivers
	}
	if late && kind == protocol.EventKindPostUpdate {
		return // no update events for late posts (rule 2)
	}
	e := &delivery.Event{
		Meta:             protocol.PostMeta(kind, t, a.d.Dir.Categories(a.handle)),
		Header:           protocol.EventHeader{Kind: kind, EventID: protocol.TweetEventID(t.ID), Handle: a.handle},
		Tweet:            t,
		UpdateForOCROnly: ocrOnly,
		CreatedAt:        t.CreatedAt,
		DetectedAt:       first,
		Late:             late,
	}
	a.publish(e)
	// Late posts of the replay window are kept too: only late-delivery
	// sessions replay posts, and they take late posts (rule 2).
	if kind == protocol.EventKindPostNew && a.d.Recent != nil && (!late || age <= a.d.Timings.ReplayWindow.Milliseconds()) {
		e.Encode()
		a.d.Recent.AddPost(a.handle, e)
	}
}

// deriveDeleted publishes social.tweet.deleted; it is never retained.
func (a *handleActor) deriveDeleted(o *protocol.Observation) {
	d := o.PostDeleted
	a.publish(a.nonPost(protocol.EventKindTweetDeleted, o.DetectedAt, "", protocol.AppendDeletedData(nil, d.TweetID, d.Text)))
}

// deriveFollowing diffs the following list against the last one and makes
// it the baseline; the first list of a handle is its baseline and gives no
// events. Events detected together share one event id (rule 4).
func (a *handleActor) deriveFollowing(o *protocol.Observation) *FollowsChanged {
	cur := o.Following.Users
	c := &FollowsChanged{Handle: a.handle, Following: cur, First: a.following == nil || a.followingAdopted,
		At: o.DetectedAt, PrevAt: a.followingAt}
	if a.following != nil {
		c.Added, c.Removed, c.Renamed = FollowDiff(a.following, a.followOrder, cur)
		for i := range c.Added {
			a.followEvent(protocol.EventKindFollowingNew, o.DetectedAt, &c.Added[i])
		}
		for i := range c.Removed {
			a.followEvent(protocol.EventKindFollowingRemoved, o.DetectedAt, &c.Removed[i])
		}
	}
	if c.First {
		c.PrevAt = 0
	}
	a.setFollowing(cur, o.DetectedAt)
	a.followingAdopted = false
	return c
}

// deriveMemberships diffs the communities against the last membership and
// makes them the new one (no realtime events: memberships are for the
// products).
func (a *handleActor) deriveMemberships(o *protocol.Observation) *MembershipsChanged {
	next, changes := DiffMemberships(a.memberships, a.membershipsKnown, o.Communities.Communities, o.DetectedAt)
	c := &MembershipsChanged{Handle: a.handle, Changes: changes, Memberships: next,
		First: !a.membershipsKnown || a.membershipsAdopted, At: o.DetectedAt}
	a.memberships, a.membershipsKnown, a.membershipsAdopted = next, true, false
	return c
}

func (a *handleActor) followEvent(kind protocol.EventKind, at int64, u *protocol.FollowUser) {
	e := a.nonPost(kind, at, u.ID, protocol.AppendFollowingData(nil, u))
	a.publish(e)
	a.trace(e)
	if a.d.Recent != nil {
		e.Encode()
		a.d.Recent.AddFollow(a.handle, e)
	}
}

// deriveFollowers publishes social.follower.new for each new follower.
func (a *handleActor) deriveFollowers(o *protocol.Observation) {
	for i := range o.FollowersNew.Users {
		u := &o.FollowersNew.Users[i]
		e := a.nonPost(protocol.EventKindFollowerNew, o.DetectedAt, u.ID, protocol.AppendFollowerData(nil, u))
		a.publish(e)
		a.trace(e)
	}
}

// trace keeps a non-tweet event for GET /v1/dt/events/{event_id}.
func (a *handleActor) trace(e *delivery.Event) {
	if a.d.Trace != nil {
		a.d.Trace.Trace(a.handle, e)
	}
}
