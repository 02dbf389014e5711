package tweetalerts

import (
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

type subscriptionObject struct {
	Tier         string     `json:"tier"`
	AccountLimit int        `json:"account_limit"`
	ExpiresAt    *time.Time `json:"expires_at"`
}

func (a *api) getSubscription(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	// tier is the plan's name in GET /v1/plans, so clients can find it there.
	v := subscriptionObject{Tier: protocol.PlanName(p.Product, p.Sub.Plan), ExpiresAt: p.Sub.ExpiresAt}
	if p.Product == protocol.ProductB2B {
		v.AccountLimit = p.Sub.MaxHandles
	} else if plan, ok := protocol.FindTweetAlertsPlan(p.Sub.Plan); ok {
		v.AccountLimit = plan.Accounts
	}
	return 200, v, nil
}

var planList = map[string]any{"plans": protocol.PlanList()}

func (a *api) getPlans(*fasthttp.RequestCtx, *account.Principal) (int, any, error) {
	return 200, planList, nil
}
