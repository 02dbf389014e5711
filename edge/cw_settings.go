package edge

import (
	"fmt"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// cwSettingsView is the settings object of GET and PATCH /v1/cw/settings.
type cwSettingsView struct {
	EventTypes       []string `json:"event_types"`
	MinMemberCount   int64    `json:"min_member_count"`
	FlapCooldownSecs int      `json:"flap_cooldown_secs"`
}

func cwSettingsOf(s cw.Settings) cwSettingsView {
	v := cwSettingsView{EventTypes: s.EventTypes, MinMemberCount: s.MinMemberCount, FlapCooldownSecs: s.FlapCooldownSecs}
	if v.EventTypes == nil {
		v.EventTypes = []string{}
	}
	return v
}

func (s *Server) cwGetSettings(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	return 200, cwSettingsOf(s.deps.Products.CW.Settings(p.AccountID)), nil
}

// cwEventTypes reads `event_types`: an array of the four event types
// (duplicates count once; kept in the spec's order).
func cwEventTypes(m map[string]json.RawMessage) ([]string, bool, error) {
	raw, present := m["event_types"]
	if !present {
		return nil, false, nil
	}
	var list []string
	if isNull(raw) || json.Unmarshal(raw, &list) != nil {
		return nil, false, protocol.BadRequest("event_types must be an array of strings")
	}
	for _, t := range list {
		if !slices.Contains(cw.EventTypes, t) {
			return nil, false, protocol.BadRequest(fmt.Sprintf("event_types: unknown event type %q", t)).
				WithHint("use any of community_joined, community_renamed, community_description_changed, account_followed")
		}
	}
	out := []string{}
	for _, t := range cw.EventTypes {
		if slices.Contains(list, t) {
			out = append(out, t)
		}
	}
	return out, true, nil
}

// cwPatchSettings is PATCH /v1/cw/settings: every field optional, all
// checked before any is applied.
func (s *Server) cwPatchSettings(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	types, setTypes, err := cwEventTypes(m)
	if err != nil {
		return 0, nil, err
	}
	floor, setFloor, err := watchInt(m, "min_member_count", 0, -1)
	if err != nil {
		return 0, nil, err
	}
	cool, setCool, err := watchInt(m, "flap_cooldown_secs", cw.MinFlapCooldownSecs, cw.MaxFlapCooldownSecs)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := watchCtx()
	defer cancel()
	out, err := s.deps.Products.CW.UpdateSettings(cctx, p.AccountID, func(st *cw.Settings) error {
		if setTypes {
			st.EventTypes = types
		}
		if setFloor {
			st.MinMemberCount = floor
		}
		if setCool {
			st.FlapCooldownSecs = int(cool)
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return 200, cwSettingsOf(out), nil
}

// cwStatusView is GET /v1/cw/status.
type cwStatusView struct {
	HandlesTracked     int  `json:"handles_tracked"`
	HandleLimit        int  `json:"handle_limit"`
	CommunitiesTracked int  `json:"communities_tracked"`
	Deliveries24h      int  `json:"deliveries_24h"`
	WebhookConfigured  bool `json:"webhook_configured"`
}

// cwStatus: communities_tracked counts the distinct communities the
// account's handles belong to now; deliveries_24h the events that passed
// its settings (webhook and chat deliveries) in the last 24 hours.
func (s *Server) cwStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &s.deps.Products
	names := d.CW.Names(p.AccountID)
	states, err := d.CWTracker.States(names)
	if err != nil {
		return 0, nil, err
	}
	seen := map[string]struct{}{}
	for _, st := range states {
		for _, m := range st.Communities {
			seen[m.ID] = struct{}{}
		}
	}
	cctx, cancel := watchCtx()
	defer cancel()
	n, err := s.deps.Store.CountWatchEvents(cctx, protocol.ProductCW, p.AccountID, s.now().Add(-24*time.Hour))
	if err != nil {
		return 0, nil, err
	}
	_, hook := d.CW.Webhook(p.AccountID)
	return 200, cwStatusView{HandlesTracked: len(names), HandleLimit: handleLimit(p), CommunitiesTracked: len(seen),
		Deliveries24h: n, WebhookConfigured: hook}, nil
}
