package protocol

import (
	"slices"
	"strconv"
)

// B2B modules (spec 2).
const (
	ModuleRealtime     = "realtime"
	ModuleFollows      = "follows"
	ModuleProfileWatch = "profile_watch"
	ModuleFollowers    = "followers"
	ModuleLateDelivery = "late_delivery"
	ModuleCASearch     = "ca_search"
)

// TweetAlertsPlan is one row of spec 1's plan table.
type TweetAlertsPlan struct {
	Name          string
	PriceUSD      float64
	Accounts      int
	Webhooks      int
	WSConns       int // 0: refused on the WebSocket
	RESTPerSecond int // per account, 1-second windows (not shown in the spec; ours)
}

// TweetAlertsPlans in ascending order. Prices are the operator's to set; these
// are the list prices served by /v1/plans.
var TweetAlertsPlans = []TweetAlertsPlan{
	{"free", 0, 1, 0, 0, 2},
	{"starter", 9, 10, 1, 2, 5},
	{"growth", 19, 35, 2, 3, 10},
	{"pro", 39, 75, 5, 5, 20},
	{"business", 79, 150, 10, 10, 30},
	{"scale", 99, 200, 10, 10, 40},
	{"enterprise", 199, 500, 25, 25, 50},
	{"ultra", 349, 1000, 50, 50, 100},
}

// DTRESTPerSecond is the consumer-route rate of a dt_ key (B2B REST itself is
// not rate-limited).
const DTRESTPerSecond = 20

// DTWSConns is the Tweet Alerts WebSocket allowance of a dt_ key and the B2B
// WebSocket limit per account.
const DTWSConns = 5

// FindTweetAlertsPlan returns the plan named name.
func FindTweetAlertsPlan(name string) (TweetAlertsPlan, bool) {
	for _, p := range TweetAlertsPlans {
		if p.Name == name {
			return p, true
		}
	}
	return TweetAlertsPlan{}, false
}

// B2BTiers are the dt plans; each gives its default modules.
var B2BTiers = map[string][]string{
	"starter":    {ModuleRealtime},
	"pro":        {ModuleRealtime, ModuleProfileWatch, ModuleFollowers},
	"enterprise": {ModuleRealtime, ModuleProfileWatch, ModuleFollowers, ModuleFollows},
}

// B2BModules are the modules a dt subscription may carry.
var B2BModules = []string{ModuleRealtime, ModuleFollows, ModuleProfileWatch, ModuleFollowers}

// MaxB2BHandles is the highest handle ceiling of a dt plan.
const MaxB2BHandles = 1000

// Default dt handle ceilings per tier when the admin does not set one.
var B2BDefaultHandles = map[string]int{"starter": 25, "pro": 100, "enterprise": 500}

// Size plans of the other products (CONTRACT.md section 2).
var (
	HandlePlanSizes = []int{20, 50, 100, 200, 500} // cw, ct
	TweetPlanSizes  = []int{25, 50}                // et
	WalletPlanSizes = []int{3, 6, 10, 20}          // pf, per alert type
	CASearchDaily   = []int{1000, 2000, 5000}
)

// ValidSize reports whether n is one of sizes.
func ValidSize(sizes []int, n int) bool { return slices.Contains(sizes, n) }

// PlanEntry is one row of GET /v1/plans (spec 1 "Plan"): every product's
// plans, with no product field.
type PlanEntry struct {
	Name         string  `json:"name"`
	PriceUSD     float64 `json:"price_usd"`
	AccountLimit int     `json:"account_limit"`
	MaxWebhooks  int     `json:"max_webhooks"`
}

// PlanName is the `name` under which PlanList shows plan of product, what
// GET /v1/subscription answers as `tier` ("Pro", "B2B Enterprise"); plan
// itself when PlanList has no such plan.
func PlanName(product Product, plan string) string {
	switch product {
	case ProductTweetAlerts:
		if _, ok := FindTweetAlertsPlan(plan); ok {
			return title(plan)
		}
	case ProductB2B:
		if _, ok := B2BTiers[plan]; ok {
			return "B2B " + title(plan)
		}
	}
	return plan
}

// PlanList is the catalogue served by GET /v1/plans.
func PlanList() []PlanEntry {
	var out []PlanEntry
	for _, p := range TweetAlertsPlans {
		out = append(out, PlanEntry{Name: title(p.Name), PriceUSD: p.PriceUSD, AccountLimit: p.Accounts, MaxWebhooks: p.Webhooks})
	}
	for _, t := range []struct {
		name  string
		price float64
	}{{"starter", 199}, {"pro", 499}, {"enterprise", 1499}} {
		out = append(out, PlanEntry{Name: "B2B " + title(t.name), PriceUSD: t.price, AccountLimit: B2BDefaultHandles[t.name]})
	}
	for i, n := range HandlePlanSizes {
		out = append(out, PlanEntry{Name: "Community Watch " + itoa(n), PriceUSD: float64(29 * (i + 1)), AccountLimit: n, MaxWebhooks: 1})
		out = append(out, PlanEntry{Name: "Convergence Tracker " + itoa(n), PriceUSD: float64(29 * (i + 1)), AccountLimit: n, MaxWebhooks: 1})
	}
	for i, n := range TweetPlanSizes {
		out = append(out, PlanEntry{Name: "Engagement Tracker " + itoa(n), PriceUSD: float64(19 * (i + 1)), AccountLimit: n, MaxWebhooks: 1})
	}
	for i, n := range WalletPlanSizes {
		out = append(out, PlanEntry{Name: "PumpFun " + itoa(n), PriceUSD: float64(15 * (i + 1)), AccountLimit: n})
	}
	out = append(out,
		PlanEntry{Name: "Trending Alerts", PriceUSD: 19, AccountLimit: 24},
		PlanEntry{Name: "ECA", PriceUSD: 0, AccountLimit: 1},
		PlanEntry{Name: "Search Alerts", PriceUSD: 15, AccountLimit: 20},
	)
	return out
}

func title(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func itoa(n int) string { return strconv.Itoa(n) }

// Limits of the single-plan products (spec 3).
const (
	SAMaxQueries       = 20  // Search Alerts queries per account
	SAQueryMaxChars    = 200 // query_text length
	ECAActiveEntries   = 1   // one active watchlist entry
	TrendingCategories = 24
)
