package cluster

import "github.com/alertd/alertd/protocol"

// RegProduct is the feed's name of a product's registry beyond the ones
// above (RegTargets, RegTweetAlerts): Community Watch, Convergence and
// Engagement Tracker lists, settings and webhooks (product/watchlist), the
// launchpad wallets, Search Alerts, ECA watchlists. The node that stored a
// change announces the account; the others reload it.
func RegProduct(p protocol.Product) string { return "product-" + string(p) }
