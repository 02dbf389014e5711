package edge

import (
	"slices"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// b2bRoutes are the B2B monitoring routes under /v1/dt (spec 2).
func (s *Server) b2bRoutes(r *router.Router) {
	r.GET("/v1/dt/status", s.wrap(FamilyB2B, s.dtStatus))
	if s.deps.Targets != nil {
		r.GET("/v1/dt/targets", s.wrap(FamilyB2B, s.listTargets))
		r.POST("/v1/dt/targets", s.wrap(FamilyB2B, s.addTarget))
		r.DELETE("/v1/dt/targets/{handle}", s.wrap(FamilyB2B, s.removeTarget))
	}
}

type dtStatusView struct {
	Targets    int      `json:"targets"`
	MaxHandles int      `json:"max_handles"`
	IsActive   bool     `json:"is_active"`
	DaysLeft   int      `json:"days_left"`
	Modules    []string `json:"modules"`
}

func (s *Server) dtStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	now := s.now()
	n := 0
	if s.deps.Targets != nil {
		n, _ = s.deps.Targets.Counts(p.AccountID)
	}
	return 200, dtStatusView{
		Targets:    n,
		MaxHandles: p.Sub.MaxHandles,
		IsActive:   !p.Sub.Expired(now),
		DaysLeft:   daysLeft(p.Sub, now),
		Modules:    Modules(p.Sub),
	}, nil
}

// Modules lists a dt subscription's modules as READY and status show them:
// the event modules, then the add-ons.
func Modules(s *persistence.Subscription) []string {
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
