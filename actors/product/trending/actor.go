// Package trending streams Trending Alerts: every trending post of the 24
// categories goes to every /v1/trending/ws socket, once per (category, post).
package trending

import (
	"log/slog"
	"reflect"

	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// rememberPosts bounds the memory of (category, post) pairs already streamed:
// a trending post observed again (its counts climbing) is not sent twice.
const rememberPosts = 20_000

// streamActor owns the sockets of the stream.
type streamActor struct {
	log   *slog.Logger
	sinks map[Sink]struct{}
	seen  *recentSet
}

func newStreamActor(log *slog.Logger) *streamActor {
	return &streamActor{log: log, sinks: map[Sink]struct{}{}, seen: newRecentSet(rememberPosts)}
}

func (a *streamActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *observed:
		a.publish(m.obs)
	case *subscribe:
		a.sinks[m.sink] = struct{}{}
	case *unsubscribe:
		delete(a.sinks, m.sink)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Touch: // Touch: engine.Sync; protoactor answers it
	default:
		a.log.Warn("trending actor: unexpected message", "type", reflect.TypeOf(m).String())
	}
}

func (a *streamActor) publish(o *protocol.TrendingObs) {
	if !protocol.IsTrendingSlug(o.Category) {
		a.log.Debug("trending: category not among the 24, dropped", "category", o.Category)
		return
	}
	if !a.seen.Add(o.Category + "/" + o.Tweet.TweetID) {
		return
	}
	if len(a.sinks) == 0 {
		return
	}
	f, err := EncodeFrame(o)
	if err != nil {
		a.log.Error("trending: encode frame", "err", err)
		return
	}
	for s := range a.sinks {
		s.Send(f)
	}
}
