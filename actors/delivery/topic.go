package delivery

import "github.com/alertd/alertd/protocol"

// TopicKind says what a topic is keyed by. A kind exists because something
// publishes on it.
type TopicKind uint8

const (
	// TopicHandle: one platform handle; its handle actor publishes the
	// handle's events (posts, follows, profile changes, deletions).
	TopicHandle TopicKind = iota + 1
	// TopicAccount: one account of one product. Product actors publish the
	// account's socket frames (cw, ct, et, eca, sa); the list registries
	// publish changes of the account's list (B2B targets, Tweet Alerts
	// tracked accounts).
	TopicAccount
	// TopicWallet: one wallet; PumpFun publishes its wallet events and the
	// callouts of its caller.
	TopicWallet
	// TopicProduct: every socket of one product (Trending).
	TopicProduct
)

// Topic names one subscriber list of the hub. It is a comparable value: the
// hub's map key.
type Topic struct {
	Kind    TopicKind
	Product protocol.Product // account, wallet and product topics
	Key     string           // handle, account id or wallet
}

// HandleTopic is the topic of handle h's events.
func HandleTopic(h string) Topic { return Topic{Kind: TopicHandle, Key: h} }

// AccountTopic is the topic of account's events and list changes in
// product p.
func AccountTopic(p protocol.Product, account string) Topic {
	return Topic{Kind: TopicAccount, Product: p, Key: account}
}

// WalletTopic is the topic of a PumpFun wallet.
func WalletTopic(wallet string) Topic {
	return Topic{Kind: TopicWallet, Product: protocol.ProductPumpFun, Key: wallet}
}

// ProductTopic is the topic every socket of product p hears.
func ProductTopic(p protocol.Product) Topic { return Topic{Kind: TopicProduct, Product: p} }

// Lists publishes the changes of accounts' lists of product Product on their
// account topics, for the sessions that follow them: the B2B target registry
// and the Tweet Alerts tracked lists call it after each change.
type Lists struct {
	Hub     *Hub
	Product protocol.Product
}

// TargetAdded publishes that handle joined account's list.
func (l Lists) TargetAdded(account, handle string) {
	l.Hub.Publish(AccountTopic(l.Product, account), TargetAdded(handle))
}

// TargetRemoved publishes that handle left account's list.
func (l Lists) TargetRemoved(account, handle string) {
	l.Hub.Publish(AccountTopic(l.Product, account), TargetRemoved(handle))
}
