package cw

import (
	"cmp"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/handle"
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
	// feeds the flap cooldown.
	Left ChangeKind = "community_left"
)

var kinds = map[handle.MembershipChangeKind]ChangeKind{handle.Joined: Joined, handle.Left: Left,
	handle.CommunityRenamed: Renamed, handle.DescriptionChanged: DescriptionChanged}

// EventAccountFollowed is the event type of follow_change events.
const EventAccountFollowed = "account_followed"

// Change is one membership change as Community Watch delivers it.
type Change struct {
	Kind           ChangeKind
	Community      protocol.Community // as now (Left: as last seen)
	OldName        string             // Renamed
	OldDescription string             // DescriptionChanged
	// At is the detection time (epoch ms) of the list that showed it.
	At int64
	// JoinedAt is when the membership began: At for a join; otherwise the
	// join time kept (0: before the sync).
	JoinedAt int64
	// PrevJoinedAt and PrevLeftAt describe the last membership of the same
	// community, for a join that follows a recent leave (0 when none).
	PrevJoinedAt, PrevLeftAt int64
}

// MaxFlapCooldown is the longest flap_cooldown_secs: leaves are remembered
// this long.
const MaxFlapCooldown = 3600 * time.Second

// Apply takes the memberships a handle actor reports into a watched
// handle's state. The first report after the handle was added is the sync:
// it alerts nothing, and the memberships it lists predate it. Later, each
// change of the handle actor becomes Community Watch's, in its order, with
// the join times that predate the sync unknown (0), and each join carries
// the last membership of the same community if it ended within
// MaxFlapCooldown (the flap cooldown). It does not change prev.
func Apply(prev HandleState, c *handle.MembershipsChanged) (next HandleState, changes []Change) {
	next = prev
	if !prev.Synced {
		next.Synced, next.SyncedAt, next.Left = true, c.At, nil
		next.Predating = make([]string, 0, len(c.Memberships))
		for _, m := range c.Memberships {
			next.Predating = append(next.Predating, m.ID)
		}
		return next, nil
	}
	next.Predating = slices.Clone(prev.Predating)
	left := make(map[string]Leave, len(prev.Left))
	for _, l := range prev.Left {
		left[l.ID] = l
	}
	for _, hc := range c.Changes {
		ch := Change{Kind: kinds[hc.Kind], Community: hc.Community, OldName: hc.OldName, OldDescription: hc.OldDescription,
			At: c.At, JoinedAt: hc.JoinedAt}
		if slices.Contains(next.Predating, hc.Community.ID) {
			ch.JoinedAt = 0
		}
		switch ch.Kind {
		case Joined:
			if l, ok := left[ch.Community.ID]; ok {
				ch.PrevJoinedAt, ch.PrevLeftAt = l.JoinedAt, l.LeftAt
				delete(left, ch.Community.ID)
			}
		case Left:
			left[ch.Community.ID] = Leave{ID: ch.Community.ID, JoinedAt: ch.JoinedAt, LeftAt: c.At}
			next.Predating = slices.DeleteFunc(next.Predating, func(id string) bool { return id == ch.Community.ID })
		}
		changes = append(changes, ch)
	}
	// Keep the leaves still inside the longest cooldown, oldest first.
	horizon := c.At - MaxFlapCooldown.Milliseconds()
	next.Left = nil
	for _, l := range left {
		if l.LeftAt >= horizon {
			next.Left = append(next.Left, l)
		}
	}
	slices.SortFunc(next.Left, func(a, b Leave) int { return cmp.Or(cmp.Compare(a.LeftAt, b.LeftAt), cmp.Compare(a.ID, b.ID)) })
	if len(next.Predating) == 0 {
		next.Predating = nil
	}
	return next, changes
}

// NewFollows are the accounts of a following change that Community Watch
// alerts (account_followed): none from the first list heard (the baseline),
// each account once, in list order.
func NewFollows(synced bool, c *handle.FollowsChanged) []protocol.FollowUser {
	if !synced || len(c.Added) == 0 {
		return nil
	}
	out := make([]protocol.FollowUser, 0, len(c.Added))
	seen := make(map[string]struct{}, len(c.Added))
	for _, u := range c.Added {
		if _, dup := seen[u.ID]; !dup {
			seen[u.ID] = struct{}{}
			out = append(out, u)
		}
	}
	return out
}
