package handle

import "maps"

// A rename moves a user from one handle to another. The user actor applies
// it (directory, delivery hub, targets) and tells the old handle's actor,
// which hands its state to the new handle's actor: the following baseline,
// the memberships with their join times and the posts seen. So the new
// handle does not take a new baseline, a post seen under the old handle is
// not new again, and the follow events across the rename are published.

// handOver sends a copy of the state to the actor of handle to.
func (a *handleActor) handOver(to string) {
	if to == a.handle {
		return
	}
	st := State{posts: maps.Clone(a.posts), memberships: a.memberships, membershipsKnown: a.membershipsKnown}
	if a.following != nil {
		st.following = maps.Clone(a.following)
		st.followOrder = append([]string(nil), a.followOrder...)
		st.followingAt = a.followingAt
	}
	a.r.Tell(to, KindHandle, &adopt{from: a.handle, state: st})
}

// adopt takes from the state of a renamed handle what this actor lacks: a
// list observed under the new handle already is newer than the old one.
// Memberships are shared read-only, never changed in place.
func (a *handleActor) adopt(m *adopt) {
	if a.following == nil && m.state.following != nil {
		a.following, a.followOrder, a.followingAt = m.state.following, m.state.followOrder, m.state.followingAt
		a.followingAdopted = true
	}
	if !a.membershipsKnown && m.state.membershipsKnown {
		a.memberships, a.membershipsKnown, a.membershipsAdopted = m.state.memberships, true, true
	}
	for id, p := range m.state.posts {
		if _, ok := a.posts[id]; !ok {
			a.posts[id] = p
		}
	}
	a.trimPosts()
	a.d.Log.Debug("handle actor: state adopted from a rename", "handle", a.handle, "from", m.from)
}
