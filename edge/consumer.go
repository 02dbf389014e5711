package edge

import (
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// consumerRoutes are the Tweet Alerts routes under /v1 (spec 1).
func (s *Server) consumerRoutes(r *router.Router) {
	f := FamilyTweetAlerts
	r.GET("/v1/subscription", s.sessionOrKey(f, s.getSubscription))
	r.GET("/v1/plans", s.sessionOrKey(f, s.getPlans))
}

type subscriptionObject struct {
	Tier         string     `json:"tier"`
	AccountLimit int        `json:"account_limit"`
	ExpiresAt    *time.Time `json:"expires_at"`
}

func (s *Server) getSubscription(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	v := subscriptionObject{Tier: p.Sub.Plan, ExpiresAt: p.Sub.ExpiresAt}
	if p.Product == protocol.ProductB2B {
		v.AccountLimit = p.Sub.MaxHandles
	} else if plan, ok := protocol.FindTweetAlertsPlan(p.Sub.Plan); ok {
		v.AccountLimit = plan.Accounts
	}
	return 200, v, nil
}

var planList = map[string]any{"plans": protocol.PlanList()}

func (s *Server) getPlans(*fasthttp.RequestCtx, *account.Principal) (int, any, error) {
	return 200, planList, nil
}
