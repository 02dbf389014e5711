package cluster

import "github.com/alertd/alertd/protocol"

// RegProduct is the feed's name of a product's registry beyond the ones
// above (RegTargets, RegTweetAlerts): Community Watch, Convergence and
// Engagement Tracker lists, settings and webhooks (product/watchlist), the
// launchpad wallets (pumpfun), Search Alerts queries, ECA watchlists. The
// node that stored a change announces the account; the others reload it.
func RegProduct(p protocol.Product) string { return "product-" + string(p) }

// RegChats are the chat-messenger chats linked to accounts (chat.Chats).
const RegChats = "chats"

// Share puts a registry that reloads by account on the feed, before
// Start: reload reads the accounts another node announced (nil: all), and
// onChange installs the hook the registry calls with the account of each
// change it stored, which this node then announces.
func (f *Feed) Share(name string, reload ReloadFunc, onChange func(func(account string))) {
	f.Register(name, reload)
	onChange(func(account string) { f.Changed(name, account) })
}
