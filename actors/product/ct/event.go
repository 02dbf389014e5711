package ct

import (
	"github.com/alertd/alertd/actors/product/watchlist"
	json "github.com/goccy/go-json"
)

// Frame and event names of spec 3 "Events".
const (
	FrameConvergence = "convergence"
	EventConvergence = "convergence_detected"
)

// Data is the data of a convergence (spec 3).
type Data struct {
	CommunityID       string   `json:"community_id"`
	CommunityName     string   `json:"community_name"`
	MemberCount       int64    `json:"member_count"`
	ConvergingHandles []string `json:"converging_handles"`
	ConvergenceCount  int      `json:"convergence_count"`
	DetectedAt        string   `json:"detected_at"`
}

func newData(id, name string, memberCount int64, members []Member, detectedAt int64) Data {
	d := Data{CommunityID: id, CommunityName: name, MemberCount: memberCount,
		ConvergingHandles: make([]string, len(members)), ConvergenceCount: len(members),
		DetectedAt: watchlist.ISOTime(detectedAt)}
	for i, m := range members {
		d.ConvergingHandles[i] = m.Handle
	}
	return d
}

func encode(d *Data) ([]byte, error) { return json.Marshal(d) }
