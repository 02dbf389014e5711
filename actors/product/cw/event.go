package cw

import (
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Event and frame names of spec 3 "Events".
const (
	FrameCommunityChange = "community_change" // WebSocket type and webhook event
	EventFollowChange    = "follow_change"    // webhook only
	EventNewFollowers    = "new_followers"    // webhook only (the digest)
)

// CommunityData is the data of a community_change event (spec 3).
type CommunityData struct {
	EventType          string  `json:"event_type"`
	ScreenName         string  `json:"screen_name"`
	SocialUserID       *string `json:"social_user_id"`
	CommunityID        string  `json:"community_id"`
	CommunityName      string  `json:"community_name"`
	OldName            *string `json:"old_name,omitempty"`
	Description        string  `json:"description"`
	OldDescription     *string `json:"old_description,omitempty"`
	MemberCount        int64   `json:"member_count"`
	CreatorScreenName  string  `json:"creator_screen_name"`
	DetectedAt         string  `json:"detected_at"`
	DetectionLatencyMS int64   `json:"detection_latency_ms"`
}

// Followed is the account a watched handle followed.
type Followed struct {
	ID         string  `json:"id"`
	ScreenName string  `json:"screen_name"`
	Name       *string `json:"name"`
	Bio        *string `json:"bio"`
	Followers  *int64  `json:"followers"`
	Following  *int64  `json:"following"`
	Protected  *bool   `json:"protected"`
}

// FollowData is the data of a follow_change event (ours: spec 3 names the
// event, not its fields).
type FollowData struct {
	EventType          string   `json:"event_type"` // account_followed
	ScreenName         string   `json:"screen_name"`
	SocialUserID       *string  `json:"social_user_id"`
	Followed           Followed `json:"followed"`
	DetectedAt         string   `json:"detected_at"`
	DetectionLatencyMS int64    `json:"detection_latency_ms"`
}

// Follower is one new follower in a digest.
type Follower struct {
	ID         string  `json:"id"`
	ScreenName string  `json:"screen_name"`
	Name       *string `json:"name"`
}

// NewFollowersData is the data of a new_followers digest event (ours).
type NewFollowersData struct {
	ScreenName         string     `json:"screen_name"`
	SocialUserID       *string    `json:"social_user_id"`
	Followers          []Follower `json:"followers"`
	Count              int        `json:"count"`
	DetectedAt         string     `json:"detected_at"`
	DetectionLatencyMS int64      `json:"detection_latency_ms"`
}

// stamp is when and how fast a change was detected: detectedAt is the
// detector's clock, observedAt the observation's detection time (ms).
type stamp struct{ detectedAt, observedAt int64 }

func (s stamp) iso() string    { return watchlist.ISOTime(s.detectedAt) }
func (s stamp) latency() int64 { return max(s.detectedAt-s.observedAt, 0) }

func communityData(handle string, userID *string, c Change, st stamp) ([]byte, error) {
	d := CommunityData{
		EventType: string(c.Kind), ScreenName: handle, SocialUserID: userID,
		CommunityID: c.Community.ID, CommunityName: c.Community.Name, Description: c.Community.Description,
		MemberCount: c.Community.MemberCount, CreatorScreenName: c.Community.CreatorScreenName,
		DetectedAt: st.iso(), DetectionLatencyMS: st.latency(),
	}
	switch c.Kind {
	case Renamed:
		d.OldName = &c.OldName
	case DescriptionChanged:
		d.OldDescription = &c.OldDescription
	}
	return json.Marshal(&d)
}

func followData(handle string, userID *string, u *protocol.FollowUser, st stamp) ([]byte, error) {
	return json.Marshal(&FollowData{
		EventType: EventAccountFollowed, ScreenName: handle, SocialUserID: userID,
		Followed: Followed{ID: u.ID, ScreenName: u.Handle, Name: u.Name, Bio: u.Bio, Followers: u.Followers,
			Following: u.Following, Protected: u.Protected},
		DetectedAt: st.iso(), DetectionLatencyMS: st.latency(),
	})
}

func newFollowersData(handle string, userID *string, us []protocol.NewFollower, st stamp) ([]byte, error) {
	d := NewFollowersData{ScreenName: handle, SocialUserID: userID, Followers: make([]Follower, len(us)), Count: len(us),
		DetectedAt: st.iso(), DetectionLatencyMS: st.latency()}
	for i, u := range us {
		d.Followers[i] = Follower{ID: u.ID, ScreenName: u.Handle, Name: u.Name}
	}
	return json.Marshal(&d)
}
