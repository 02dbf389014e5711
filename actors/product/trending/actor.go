// Package trending streams Trending Alerts: every trending post of the 24
// categories goes to every /v1/trending/ws socket, once per (category, post).
package trending

import (
	"log/slog"
	"reflect"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// rememberPosts bounds the memory of (category, post) pairs already streamed:
// a trending post observed again (its counts climbing) is not sent twice.
const rememberPosts = 20_000

// streamActor detects the trending posts to stream and publishes them on
// the product's topic.
type streamActor struct {
	log  *slog.Logger
	hub  *delivery.Hub
	seen *recentSet
}

func newStreamActor(hub *delivery.Hub, log *slog.Logger) *streamActor {
	return &streamActor{log: log, hub: hub, seen: newRecentSet(rememberPosts)}
}

func (a *streamActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *observed:
		a.publish(m.obs)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.log.Warn("trending actor: unexpected message", "type", reflect.TypeOf(m).String())
	}
}

var topic = delivery.ProductTopic(protocol.ProductTrending)

func (a *streamActor) publish(o *protocol.TrendingObs) {
	if !protocol.IsTrendingSlug(o.Category) {
		a.log.Debug("trending: category not among the 24, dropped", "category", o.Category)
		return
	}
	if !a.seen.Add(o.Category + "/" + o.Tweet.TweetID) {
		return
	}
	if !a.hub.Listened(topic) {
		return
	}
	f, err := encodeFrame(o)
	if err != nil {
		a.log.Error("trending: encode frame", "err", err)
		return
	}
	a.hub.Publish(topic, delivery.NewFrame(f, "", 0))
}
