package httpkit

import (
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// RateLimit is the rate-limit middleware: the account's requests of one
// family share one window counter whatever key they come with (other
// families count in their own); when the family's limit is spent it answers 429 with Retry-After in the family's shape and returns
// false. A family without RateLimit is not limited.
func (k *Kit) RateLimit(ctx *fasthttp.RequestCtx, f *Family, p *account.Principal) bool {
	if f.RateLimit == nil {
		return true
	}
	if ok, wait := p.Limiter.Allow(f.rateFamily, k.Now(), k.Timings.RateWindow, f.RateLimit(p)); !ok {
		k.Fail(ctx, f, protocol.RateLimited(RetrySeconds(wait)))
		return false
	}
	return true
}

// productRestPerSecond is ours: spec 3 does not show product API rates.
const productRestPerSecond = 20

func productRate(*account.Principal) int { return productRestPerSecond }

func tweetAlertsRate(p *account.Principal) int {
	if p.Product == protocol.ProductB2B {
		return protocol.DTRESTPerSecond
	}
	if plan, ok := protocol.FindTweetAlertsPlan(p.Sub.Plan); ok {
		return plan.RESTPerSecond
	}
	return protocol.TweetAlertsPlans[0].RESTPerSecond
}

// RetrySeconds rounds a wait up to whole seconds, at least 1.
func RetrySeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}
