package cw

import (
	"fmt"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// settingsView is the settings object of GET and PATCH /v1/cw/settings.
type settingsView struct {
	EventTypes       []string `json:"event_types"`
	MinMemberCount   int64    `json:"min_member_count"`
	FlapCooldownSecs int      `json:"flap_cooldown_secs"`
}

func settingsOf(s cw.Settings) settingsView {
	v := settingsView{EventTypes: s.EventTypes, MinMemberCount: s.MinMemberCount, FlapCooldownSecs: s.FlapCooldownSecs}
	if v.EventTypes == nil {
		v.EventTypes = []string{}
	}
	return v
}

func (a *api) getSettings(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	return 200, settingsOf(a.d.Registry.Settings(p.AccountID)), nil
}

// eventTypes reads `event_types`: an array of the four event types
// (duplicates count once; kept in the spec's order).
func eventTypes(m map[string]json.RawMessage) ([]string, bool, error) {
	raw, present := m["event_types"]
	if !present {
		return nil, false, nil
	}
	var list []string
	if httpkit.IsNull(raw) || json.Unmarshal(raw, &list) != nil {
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

// settingsPatch is a decoded PATCH /v1/cw/settings body: each set* says
// whether the member was present.
type settingsPatch struct {
	types             []string
	floor, cool       int64
	setTypes          bool
	setFloor, setCool bool
}

// readSettings reads every member of a settings patch, all checked before
// any is applied.
func readSettings(m map[string]json.RawMessage) (settingsPatch, error) {
	var p settingsPatch
	var err error
	if p.types, p.setTypes, err = eventTypes(m); err != nil {
		return p, err
	}
	if p.floor, p.setFloor, err = httpkit.IntMember(m, "min_member_count", 0, -1); err != nil {
		return p, err
	}
	p.cool, p.setCool, err = httpkit.IntMember(m, "flap_cooldown_secs", cw.MinFlapCooldownSecs, cw.MaxFlapCooldownSecs)
	return p, err
}

// patchSettings is PATCH /v1/cw/settings: every field optional, all
// checked before any is applied.
func (a *api) patchSettings(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	in, err := readSettings(m)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	out, err := a.d.Registry.UpdateSettings(cctx, p.AccountID, func(st *cw.Settings) error {
		if in.setTypes {
			st.EventTypes = in.types
		}
		if in.setFloor {
			st.MinMemberCount = in.floor
		}
		if in.setCool {
			st.FlapCooldownSecs = int(in.cool)
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return 200, settingsOf(out), nil
}

// statusView is GET /v1/cw/status.
type statusView struct {
	HandlesTracked     int  `json:"handles_tracked"`
	HandleLimit        int  `json:"handle_limit"`
	CommunitiesTracked int  `json:"communities_tracked"`
	Deliveries24h      int  `json:"deliveries_24h"`
	WebhookConfigured  bool `json:"webhook_configured"`
}

// status: communities_tracked counts the distinct communities the
// account's handles belong to now; deliveries_24h the events that passed
// its settings (webhook and chat deliveries) in the last 24 hours.
func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	d := &a.d
	names := d.Registry.Names(p.AccountID)
	states, err := d.Tracker.States(names)
	if err != nil {
		return 0, nil, err
	}
	seen := map[string]struct{}{}
	for _, st := range states {
		for _, m := range st.Communities {
			seen[m.ID] = struct{}{}
		}
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	n, err := a.d.Store.CountWatchEvents(cctx, protocol.ProductCW, p.AccountID, a.k.Now().Add(-24*time.Hour))
	if err != nil {
		return 0, nil, err
	}
	_, hook := d.Registry.Webhook(p.AccountID)
	return 200, statusView{HandlesTracked: len(names), HandleLimit: httpkit.HandleLimit(p), CommunitiesTracked: len(seen),
		Deliveries24h: n, WebhookConfigured: hook}, nil
}
