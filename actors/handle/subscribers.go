package handle

import "github.com/alertd/alertd/protocol"

// Subscriber hears changes (changes.go). Hear runs on the publishing actor's
// goroutine, concurrently across actors: it must be safe for concurrent use,
// must not block and must not run product code. A product's wrapper
// implements it by telling its own actor (kit.Ref.Tell), after dropping
// what the product does not watch.
type Subscriber interface {
	Hear(change any)
}

// Subscriptions say which subscribers hear which change. The engine fills
// them once, before the first observation is routed (engine/changes.go is
// the table); they are read-only afterwards. A nil *Subscriptions, or an
// empty list, publishes nothing and allocates nothing.
type Subscriptions struct {
	PostSeen           []Subscriber // *PostSeen
	PostDeleted        []Subscriber // *PostDeleted
	FollowsChanged     []Subscriber // *FollowsChanged
	FollowersAdded     []Subscriber // *FollowersAdded
	MembershipsChanged []Subscriber // *MembershipsChanged
	ProfileChanged     []Subscriber // *ProfileChanged
	EngagementChanged  []Subscriber // *EngagementChanged
	Trending           []Subscriber // *Observed of kind trending
	Launchpad          []Subscriber // *Observed of kind launchpad
	Callout            []Subscriber // *Observed of kind callout
	MarketCap          []Subscriber // *Observed of kind market_cap
}

// feed returns the subscribers of a feed kind's *Observed.
func (s *Subscriptions) feed(kind string) []Subscriber {
	if s == nil {
		return nil
	}
	switch kind {
	case protocol.KindTrending:
		return s.Trending
	case protocol.KindLaunchpad:
		return s.Launchpad
	case protocol.KindCallout:
		return s.Callout
	case protocol.KindMarketCap:
		return s.MarketCap
	}
	return nil
}

// publish tells change to every subscriber in subs.
func publish(subs []Subscriber, change any) {
	for _, s := range subs {
		s.Hear(change)
	}
}

// ObservedFunc adapts a product's observation intake (a method that only
// tells its actor) to a Subscriber of *Observed.
type ObservedFunc func(o *protocol.Observation)

// Hear implements Subscriber.
func (f ObservedFunc) Hear(change any) {
	if c, ok := change.(*Observed); ok {
		f(c.Obs)
	}
}
