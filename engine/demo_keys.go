package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
)

// demoAccount holds the keys --demo prints; each start reissues them.
const demoAccount = "acc_demo"

// demoChanges gives each product its largest plan.
func demoChanges(p protocol.Product) account.Changes {
	i := func(n int) *int { return &n }
	s := func(v string) *string { return &v }
	t := true
	var c account.Changes
	switch p {
	case protocol.ProductTweetAlerts:
		c.Plan = s("ultra")
	case protocol.ProductB2B:
		limit := i(5000)
		c.Plan, c.MaxHandles, c.LateDelivery, c.CASearchDailyLimit = s("enterprise"), i(protocol.MaxB2BHandles), &t, &limit
	case protocol.ProductCW, protocol.ProductCT:
		c.MaxHandles = i(500)
	case protocol.ProductET:
		c.MaxTweets = i(50)
	case protocol.ProductPumpFun:
		c.MaxWallets = i(20)
	}
	return c
}

// issueDemoKeys issues one key per product for the demo account.
func issueDemoKeys(ctx context.Context, r *account.Registry) (map[protocol.Product]string, error) {
	if err := r.EnsureAccount(ctx, demoAccount); err != nil {
		return nil, err
	}
	keys := map[protocol.Product]string{}
	for _, p := range protocol.Products {
		iss, err := r.Issue(ctx, demoAccount, p, demoChanges(p))
		if err != nil {
			return nil, fmt.Errorf("issue demo %s key: %w", p, err)
		}
		keys[p] = iss.Key
	}
	return keys, nil
}

// printDemoKeys shows the keys and a first request to try.
func printDemoKeys(w io.Writer, base string, keys map[protocol.Product]string, handle string) {
	fmt.Fprintf(w, "\nalertd demo is live at %s (synthetic upstream running)\n\nOne ready key per product:\n", base)
	for _, p := range protocol.Products {
		fmt.Fprintf(w, "  %-6s %s\n", p, keys[p])
	}
	fmt.Fprintf(w, "\nTry:\n  curl -s -H 'Authorization: Bearer %s' %s/v1/dt/status\n", keys[protocol.ProductB2B], base)
	fmt.Fprintf(w, "  curl -s -H 'Authorization: Bearer %s' %s/social/user/%s\n\n", keys[protocol.ProductB2B], base, handle)
}
