package handle

import (
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// DiffMemberships compares a handle's new complete membership cur, detected
// at at (epoch ms), with prev (known: there was a previous list). The first
// list is the baseline: it gives no change and its join times are unknown.
// Changes come in list order (joins, renames, description changes), then
// leaves in the order of prev. A community listed twice counts once (the
// first listing).
func DiffMemberships(prev []Membership, known bool, cur []protocol.Community, at int64) (next []Membership, changes []MembershipChange) {
	next = make([]Membership, 0, len(cur))
	seen := make(map[string]struct{}, len(cur))
	if !known {
		for _, c := range cur {
			if _, dup := seen[c.ID]; dup {
				continue
			}
			seen[c.ID] = struct{}{}
			next = append(next, Membership{Community: c})
		}
		return next, nil
	}
	old := make(map[string]Membership, len(prev))
	for _, m := range prev {
		old[m.ID] = m
	}
	for _, c := range cur {
		if _, dup := seen[c.ID]; dup {
			continue
		}
		seen[c.ID] = struct{}{}
		m, was := old[c.ID]
		if !was {
			changes = append(changes, MembershipChange{Kind: Joined, Community: c, JoinedAt: at})
			next = append(next, Membership{Community: c, JoinedAt: at})
			continue
		}
		if c.Name != m.Name {
			changes = append(changes, MembershipChange{Kind: CommunityRenamed, Community: c, OldName: m.Name, JoinedAt: m.JoinedAt})
		}
		if c.Description != m.Description {
			changes = append(changes, MembershipChange{Kind: DescriptionChanged, Community: c, OldDescription: m.Description, JoinedAt: m.JoinedAt})
		}
		next = append(next, Membership{Community: c, JoinedAt: m.JoinedAt})
	}
	for _, m := range prev {
		if _, still := seen[m.ID]; still {
			continue
		}
		changes = append(changes, MembershipChange{Kind: Left, Community: m.Community, JoinedAt: m.JoinedAt})
	}
	return next, changes
}

// membershipsDoc is how a handle's memberships are persisted: the
// `communities` snapshot of the handle (persistence.Snapshot), in the shape
// of the communities observation with each community's join time added. A
// snapshot written as the bare observation (before join times were kept)
// reads as memberships of unknown join time.
type membershipsDoc struct {
	Handle      string       `json:"handle"`
	Communities []Membership `json:"communities"`
}

func encodeMemberships(handle string, ms []Membership) ([]byte, error) {
	return json.Marshal(&membershipsDoc{Handle: handle, Communities: ms})
}

func decodeMemberships(data []byte) ([]Membership, error) {
	var d membershipsDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	if d.Communities == nil {
		d.Communities = []Membership{}
	}
	return d.Communities, nil
}
