package cw

import "github.com/alertd/alertd/protocol"

// Observe hands the tracker a communities, following or followers_new
// observation of a watched handle.
type Observe struct {
	Obs *protocol.Observation
}

// Unwatch tells the tracker that a handle lost a watcher (of CW or CT): it
// forgets the handle once nobody watches it, so adding it again syncs anew.
type Unwatch struct {
	Handle string
}

// Query asks for the state of handles; the tracker responds *QueryResult.
type Query struct {
	Handles []string
}

// QueryResult maps each queried handle the tracker knows to its state.
type QueryResult struct {
	States map[string]HandleView
}

// HandleView is a handle's memberships as REST shows them.
type HandleView struct {
	Synced      bool
	SyncedAt    int64
	Communities []Membership
}

// MembershipUpdate tells the Convergence Tracker a handle's memberships after
// an observation: all current ones, with their join times, and the
// communities it just left.
type MembershipUpdate struct {
	Handle      string
	Communities []Membership
	Left        []string
	// At is the observation's detection time (epoch ms).
	At int64
	// Seed marks the state loaded at start: remember it, evaluate nothing.
	Seed bool
}
