// Package cw is Community Watch: it turns the community memberships and the
// following lists of watched handles into community_change, follow_change
// and new_followers events (spec 3).
//
// The handle actors own the memberships (with join times) and the following
// baselines, and tell the tracker what changed (handle.MembershipsChanged,
// FollowsChanged, FollowersAdded). One Tracker actor keeps only what is
// Community Watch's own, per watched handle: when it synced (the first list
// heard after the handle was added alerts no change), which memberships
// predate that sync (their join time is unknown to its clients), the
// accounts awaiting their one-time sync (sync.go), and the recent leaves for
// the flap cooldown. It delivers to sockets and webhooks. Syncs is the one
// piece of shared memory: the syncs held for sockets, under its own mutex.
package cw

import (
	"slices"

	"github.com/alertd/alertd/actors/handle"
	json "github.com/goccy/go-json"
)

// Membership is a handle's membership of one community: the handle actor's.
type Membership = handle.Membership

// Leave remembers a membership that ended, for the flap cooldown.
type Leave struct {
	ID       string `json:"id"`
	JoinedAt int64  `json:"joined_at"` // 0: the membership predates the sync
	LeftAt   int64  `json:"left_at"`
}

// HandleState is what the tracker keeps, and persists, per handle.
type HandleState struct {
	// Synced is false until the first memberships heard after the handle
	// was first added: that list is the sync, which alerts nothing.
	Synced   bool  `json:"synced"`
	SyncedAt int64 `json:"synced_at,omitempty"`
	// Predating are the communities the handle was a member of at the sync
	// and has not left since: their join time is shown as unknown.
	Predating []string `json:"predating,omitempty"`
	// Left are recent leaves (kept MaxFlapCooldown) for the flap cooldown.
	Left []Leave `json:"left,omitempty"`
	// FollowingSynced is false until the first following list heard, the
	// baseline of account_followed.
	FollowingSynced bool `json:"following_synced,omitempty"`
	// Awaiting are the accounts that added the handle before its
	// memberships were known: they get the one-time sync (sync.go) when
	// the first list is heard.
	Awaiting []string `json:"awaiting,omitempty"`
}

// storedState is the persisted form. Rows written before the handle actors
// kept memberships also hold the memberships and the following ids; of
// those only which memberships predate the sync (join time 0) is kept.
type storedState struct {
	HandleState
	Legacy []Membership `json:"communities,omitempty"`
}

// encodeState and decodeState are the persisted form.
func encodeState(s *HandleState) ([]byte, error) { return json.Marshal(s) }

func decodeState(b []byte) (HandleState, error) {
	var s storedState
	if err := json.Unmarshal(b, &s); err != nil {
		return HandleState{}, err
	}
	if s.Predating == nil {
		for _, m := range s.Legacy {
			if m.JoinedAt == 0 {
				s.Predating = append(s.Predating, m.ID)
			}
		}
	}
	return s.HandleState, nil
}

// view is how a handle's memberships show to Community Watch's clients:
// those that predate the sync without a join time.
func (s *HandleState) view(ms []Membership) []Membership {
	out := make([]Membership, len(ms))
	for i, m := range ms {
		if slices.Contains(s.Predating, m.ID) {
			m.JoinedAt = 0
		}
		out[i] = m
	}
	return out
}

// clone copies the slices of s, so a copy can leave the actor.
func (s HandleState) clone() HandleState {
	s.Predating = slices.Clone(s.Predating)
	s.Left = slices.Clone(s.Left)
	s.Awaiting = slices.Clone(s.Awaiting)
	return s
}
