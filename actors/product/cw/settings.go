package cw

import "slices"

// EventTypes are the values of the event_types setting (spec 3).
var EventTypes = []string{string(Joined), string(Renamed), string(DescriptionChanged), EventAccountFollowed}

// Limits of the settings (spec 3).
const (
	MinFlapCooldownSecs = 0
	MaxFlapCooldownSecs = 3600
)

// Settings are an account's Community Watch filters. They apply to webhook
// (and chat) deliveries only; the WebSocket gets every change.
type Settings struct {
	EventTypes []string `json:"event_types"`
	// MinMemberCount: 0 = off; communities with fewer members are ignored.
	MinMemberCount int64 `json:"min_member_count"`
	// FlapCooldownSecs: a leave within this long of the join is a flap;
	// a join again within this long of that leave is not alerted again.
	FlapCooldownSecs int `json:"flap_cooldown_secs"`
}

// DefaultSettings enable every event type, with no member floor and no
// flap cooldown.
func DefaultSettings() Settings {
	return Settings{EventTypes: slices.Clone(EventTypes)}
}

// TargetOptions are the per-handle switches of a watched handle.
type TargetOptions struct {
	// NewFollowers switches the new-follower digest (new_followers
	// webhook events) on for the handle; off by default.
	NewFollowers bool `json:"new_followers,omitempty"`
}

// Enabled reports whether s delivers event type t.
func (s Settings) Enabled(t string) bool { return slices.Contains(s.EventTypes, t) }

// Flapped reports whether a join repeats a membership that ended in a flap
// within cooldownSecs: the handle left within the cooldown of joining, and
// came back within the cooldown of leaving. The client was told of the first
// join and never of the leave (leaves are not delivered), so the membership
// it knows has not changed. A membership that predates the sync has no known
// join time and never counts as a flap.
func Flapped(c Change, cooldownSecs int) bool {
	if c.Kind != Joined || cooldownSecs <= 0 || c.PrevLeftAt == 0 || c.PrevJoinedAt == 0 {
		return false
	}
	cd := int64(cooldownSecs) * 1000
	return c.PrevLeftAt-c.PrevJoinedAt <= cd && c.At-c.PrevLeftAt <= cd
}

// Deliverable reports whether a community change goes to the account's
// webhook under its settings.
func (s Settings) Deliverable(c Change) bool {
	if c.Kind == Left || !s.Enabled(string(c.Kind)) {
		return false
	}
	if s.MinMemberCount > 0 && c.Community.MemberCount < s.MinMemberCount {
		return false
	}
	return !Flapped(c, s.FlapCooldownSecs)
}

// Streamed reports whether a community change goes to the WebSocket, where
// no setting applies.
func Streamed(c Change) bool { return c.Kind != Left }
