package cw

import (
	"cmp"
	"slices"
	"time"

	"github.com/alertd/alertd/protocol"
)

// ChangeKind names a membership change; the first three are the
// community_change event types of spec 3.
type ChangeKind string

const (
	Joined             ChangeKind = "community_joined"
	Renamed            ChangeKind = "community_renamed"
	DescriptionChanged ChangeKind = "community_description_changed"
	// Left is never delivered (spec 3 does not deliver community_left); it
	// feeds the flap cooldown and the Convergence Tracker.
	Left ChangeKind = "community_left"
)

// EventAccountFollowed is the event type of follow_change events.
const EventAccountFollowed = "account_followed"

// Change is one difference between two snapshots of a handle's communities.
type Change struct {
	Kind           ChangeKind
	Community      protocol.Community // as now (Left: as last seen)
	OldName        string             // Renamed
	OldDescription string             // DescriptionChanged
	// At is the detection time (epoch ms) of the snapshot that showed it.
	At int64
	// JoinedAt is when the membership began: At for a join; for a leave the
	// join time kept (0: before the sync).
	JoinedAt int64
	// PrevJoinedAt and PrevLeftAt describe the last membership of the same
	// community, for a join that follows a recent leave (0 when none).
	PrevJoinedAt, PrevLeftAt int64
}

// MaxFlapCooldown is the longest flap_cooldown_secs: leaves are remembered
// this long.
const MaxFlapCooldown = 3600 * time.Second

// DiffCommunities compares a handle's new complete membership cur, detected
// at at (epoch ms), with prev. The first snapshot of an unsynced handle is
// its sync: it becomes the baseline and gives no change. Changes come in
// snapshot order (joins, renames, description changes), then leaves in the
// order of prev. A community listed twice counts once (the first listing).
func DiffCommunities(prev HandleState, cur []protocol.Community, at int64) (next HandleState, changes []Change) {
	next = prev
	next.Communities = make([]Membership, 0, len(cur))
	next.Left = nil
	seen := make(map[string]struct{}, len(cur))
	if !prev.Synced {
		next.Synced, next.SyncedAt = true, at
		for _, c := range cur {
			if _, dup := seen[c.ID]; dup {
				continue
			}
			seen[c.ID] = struct{}{}
			next.Communities = append(next.Communities, Membership{Community: c})
		}
		return next, nil
	}
	old := make(map[string]Membership, len(prev.Communities))
	for _, m := range prev.Communities {
		old[m.ID] = m
	}
	left := make(map[string]Leave, len(prev.Left))
	for _, l := range prev.Left {
		left[l.ID] = l
	}
	for _, c := range cur {
		if _, dup := seen[c.ID]; dup {
			continue
		}
		seen[c.ID] = struct{}{}
		m, was := old[c.ID]
		if !was {
			ch := Change{Kind: Joined, Community: c, At: at, JoinedAt: at}
			if l, ok := left[c.ID]; ok {
				ch.PrevJoinedAt, ch.PrevLeftAt = l.JoinedAt, l.LeftAt
				delete(left, c.ID)
			}
			changes = append(changes, ch)
			next.Communities = append(next.Communities, Membership{Community: c, JoinedAt: at})
			continue
		}
		if c.Name != m.Name {
			changes = append(changes, Change{Kind: Renamed, Community: c, OldName: m.Name, At: at, JoinedAt: m.JoinedAt})
		}
		if c.Description != m.Description {
			changes = append(changes, Change{Kind: DescriptionChanged, Community: c, OldDescription: m.Description, At: at, JoinedAt: m.JoinedAt})
		}
		next.Communities = append(next.Communities, Membership{Community: c, JoinedAt: m.JoinedAt})
	}
	for _, m := range prev.Communities {
		if _, still := seen[m.ID]; still {
			continue
		}
		changes = append(changes, Change{Kind: Left, Community: m.Community, At: at, JoinedAt: m.JoinedAt})
		left[m.ID] = Leave{ID: m.ID, JoinedAt: m.JoinedAt, LeftAt: at}
	}
	// Keep the leaves still inside the longest cooldown, oldest first.
	horizon := at - MaxFlapCooldown.Milliseconds()
	for _, l := range left {
		if l.LeftAt >= horizon {
			next.Left = append(next.Left, l)
		}
	}
	slices.SortFunc(next.Left, func(a, b Leave) int { return cmp.Or(cmp.Compare(a.LeftAt, b.LeftAt), cmp.Compare(a.ID, b.ID)) })
	return next, changes
}

// DiffFollowing compares a handle's complete following list with the last
// one and returns the accounts followed since, in list order. The first list
// is the baseline and gives none. next keeps the ids of cur.
func DiffFollowing(prev HandleState, cur []protocol.FollowUser) (next HandleState, added []protocol.FollowUser) {
	next = prev
	next.Following = make([]string, 0, len(cur))
	seen := make(map[string]struct{}, len(cur))
	known := make(map[string]struct{}, len(prev.Following))
	for _, id := range prev.Following {
		known[id] = struct{}{}
	}
	for _, u := range cur {
		if _, dup := seen[u.ID]; dup {
			continue
		}
		seen[u.ID] = struct{}{}
		next.Following = append(next.Following, u.ID)
		if _, ok := known[u.ID]; !ok && prev.FollowingSynced {
			added = append(added, u)
		}
	}
	next.FollowingSynced = true
	return next, added
}
