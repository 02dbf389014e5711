package b2b

import (
	"slices"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

type statusView struct {
	Targets    int      `json:"targets"`
	MaxHandles int      `json:"max_handles"`
	IsActive   bool     `json:"is_active"`
	DaysLeft   int      `json:"days_left"`
	Modules    []string `json:"modules"`
}

func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	now := a.k.Now()
	n := 0
	if a.d.Targets != nil {
		n, _ = a.d.Targets.Counts(p.AccountID)
	}
	return 200, statusView{
		Targets:    n,
		MaxHandles: p.Sub.MaxHandles,
		IsActive:   !p.Sub.Expired(now),
		DaysLeft:   daysLeft(p.Sub, now),
		Modules:    modules(p.Sub),
	}, nil
}

// modules lists a dt subscription's modules as READY and status show them:
// the event modules, then the add-ons.
func modules(s *persistence.Subscription) []string {
	out := slices.Clone(s.Modules)
	if out == nil {
		out = []string{}
	}
	if s.LateDelivery {
		out = append(out, protocol.ModuleLateDelivery)
	}
	if s.CASearchDailyLimit != nil {
		out = append(out, protocol.ModuleCASearch)
	}
	return out
}

// daysLeft is 0 for plans with no end date, else whole days left, rounded up.
func daysLeft(s *persistence.Subscription, now time.Time) int {
	if s.ExpiresAt == nil {
		return 0
	}
	d := s.ExpiresAt.Sub(now)
	if d <= 0 {
		return 0
	}
	return int((d + 24*time.Hour - 1) / (24 * time.Hour))
}
