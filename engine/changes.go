package engine

import (
	"github.com/alertd/alertd/actors/chat"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/product/b2b"
	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/eca"
	"github.com/alertd/alertd/actors/product/et"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/product/searchalerts"
	"github.com/alertd/alertd/actors/product/trending"
	"github.com/alertd/alertd/actors/product/tweetalerts"
)

// products are the product actors that hear the entity actors' changes,
// as the wire_<product>.go files build them. Each Hear only tells its own
// actor: no product code runs on a handle actor.
type products struct {
	b2b          *b2b.Recorder
	casearch     *casearch.Indexer
	tweetalerts  *tweetalerts.Matcher
	chat         *chat.TweetAlerts // nil without a bot token
	searchalerts *searchalerts.Service
	cw           *cw.Tracker
	ct           *ct.Detector
	et           *et.Detector
	trending     *trending.Service
	pumpfun      *pumpfun.Service
	eca          *eca.Service
}

// subscriptions is who hears what: the one table of which product hears
// which change of the handle, user and feed actors (actors/handle,
// changes.go). Products drop what they do not watch in their Hear.
func (p *products) subscriptions() *handle.Subscriptions {
	type subs = []handle.Subscriber
	type observed = handle.ObservedFunc // trending, pumpfun and eca take the feed's observations as they come
	return &handle.Subscriptions{
		PostSeen:           subs{p.casearch, p.searchalerts, p.tweetalerts, p.chat, p.b2b},
		PostDeleted:        subs{}, // nobody yet
		FollowsChanged:     subs{p.cw, p.b2b},
		FollowersAdded:     subs{p.cw, p.b2b},
		MembershipsChanged: subs{p.cw, p.ct, p.b2b},
		ProfileChanged:     subs{p.b2b},
		EngagementChanged:  subs{p.et, p.b2b},
		Trending:           subs{observed(p.trending.Observe)},
		Launchpad:          subs{observed(p.pumpfun.Observe), observed(p.eca.Observe)},
		Callout:            subs{observed(p.pumpfun.Observe)},
		MarketCap:          subs{observed(p.pumpfun.Observe)},
	}
}
