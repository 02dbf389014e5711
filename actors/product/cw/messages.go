package cw

// The tracker also takes the handle actors' *handle.MembershipsChanged,
// *handle.FollowsChanged and *handle.FollowersAdded (Tracker.Hear).

// Unwatch tells the tracker that a handle lost a watcher: it forgets the
// handle once nobody watches it, so adding it again syncs anew.
type Unwatch struct {
	Handle string
}

// Query asks for the state of handles; the tracker responds *QueryResult.
type Query struct {
	Handles []string
}

// QueryResult maps each queried handle the tracker knows to its state.
type QueryResult struct {
	States map[string]HandleState
}

// HandleView is a handle's memberships as REST shows them.
type HandleView struct {
	Synced      bool
	SyncedAt    int64
	Communities []Membership
}

// Added tells the tracker that Account added Handle, whose memberships its
// handle actor holds (Known false: none heard yet); the tracker makes the
// one-time sync and responds *AddedResult once it is published and held.
type Added struct {
	Account, Handle string
	Memberships     []Membership
	Known           bool
}

// AddedResult says how many sync frames Added made (0 while awaited).
type AddedResult struct {
	Frames int
}
