// Package cw is Community Watch: it follows the community memberships and
// the following lists of watched handles and turns their changes into
// community_change, follow_change and new_followers events (spec 3).
//
// One Tracker actor owns the membership state of every handle watched by
// Community Watch or by the Convergence Tracker (which uses CW detection
// internally): it diffs each `communities` snapshot against the last one,
// delivers Community Watch events to sockets and webhooks, and hands the
// memberships on to the Convergence Tracker.
package cw

import (
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Membership is a handle's membership of one community as last observed.
type Membership struct {
	protocol.Community
	// JoinedAt is when the join was detected (epoch ms); 0 for memberships
	// the handle already had at its sync, whose join time is unknown.
	JoinedAt int64 `json:"joined_at"`
}

// Leave remembers a membership that ended, for the flap cooldown.
type Leave struct {
	ID       string `json:"id"`
	JoinedAt int64  `json:"joined_at"` // 0: the membership predates the sync
	LeftAt   int64  `json:"left_at"`
}

// HandleState is what the tracker keeps, and persists, per handle.
type HandleState struct {
	// Synced is false until the first communities snapshot after the handle
	// was first added: that one is the sync, which alerts nothing.
	Synced      bool         `json:"synced"`
	SyncedAt    int64        `json:"synced_at,omitempty"`
	Communities []Membership `json:"communities"`
	// Left are recent leaves (kept MaxFlapCooldown) for the flap cooldown.
	Left []Leave `json:"left,omitempty"`
	// FollowingSynced is false until the first following list, the baseline
	// of account_followed.
	FollowingSynced bool     `json:"following_synced,omitempty"`
	Following       []string `json:"following,omitempty"` // ids
}

// encodeState and decodeState are the persisted form.
func encodeState(s *HandleState) ([]byte, error) { return json.Marshal(s) }

func decodeState(b []byte) (HandleState, error) {
	var s HandleState
	err := json.Unmarshal(b, &s)
	return s, err
}

// clone copies the slices of s, so a copy can leave the actor.
func (s HandleState) clone() HandleState {
	s.Communities = append([]Membership(nil), s.Communities...)
	s.Left = append([]Leave(nil), s.Left...)
	s.Following = append([]string(nil), s.Following...)
	return s
}
