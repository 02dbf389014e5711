// Package searchalerts is Search Alerts: saved keyword queries over every
// ingested post, checked on each query's schedule (not in real time).
// Matches are collected per query and flushed every interval to the
// account's /v1/sa/ws sockets, once per post and query.
package searchalerts

import (
	"log/slog"
	"reflect"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// Bounds of the actor.
const (
	// rememberPosts is how many post ids each query remembers, so that a
	// post observed again is not alerted twice.
	rememberPosts = 4096
	// maxPerFlush bounds the alerts one query delivers per interval; more
	// matches within one interval are dropped.
	maxPerFlush = 500
)

type pending struct {
	alerts  []Post
	dropped int
	timer   Timer
}

// Timer is a scheduled flush (a *time.Timer).
type Timer interface{ Stop() bool }

// AfterFunc schedules f after d (time.AfterFunc; tests fire flushes by hand).
type AfterFunc func(d time.Duration, f func()) Timer

func realAfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

type alertActor struct {
	reg   *Registry
	hub   *delivery.Hub
	now   func() time.Time
	after AfterFunc
	log   *slog.Logger

	self *actor.PID
	root *actor.RootContext

	pending map[int64]*pending
	seen    map[int64]*recentSet
}

func newAlertActor(reg *Registry, hub *delivery.Hub, now func() time.Time, after AfterFunc, log *slog.Logger) *alertActor {
	return &alertActor{reg: reg, hub: hub, now: now, after: after, log: log,
		pending: map[int64]*pending{}, seen: map[int64]*recentSet{}}
}

func (a *alertActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.self, a.root = c.Self(), c.ActorSystem().Root
	case *handle.PostSeen:
		a.match(m.Obs.Post)
	case *flush:
		a.flush(m.query)
	case *removed:
		if p := a.pending[m.query]; p != nil && p.timer != nil {
			p.timer.Stop()
		}
		delete(a.pending, m.query)
		delete(a.seen, m.query)
	case *actor.Stopping, *actor.Restarting:
		// A restart drops this instance with what it collected: its flush
		// timers must not fire into the new one.
		for _, p := range a.pending {
			if p.timer != nil {
				p.timer.Stop()
			}
		}
	case *actor.Stopped:
	default:
		a.log.Warn("search alerts actor: unexpected message", "type", reflect.TypeOf(m).String())
	}
}

// match collects t for every query whose words it holds.
func (a *alertActor) match(t *protocol.Tweet) {
	if t == nil {
		return
	}
	words := Tokenize(t.Text)
	if len(words) == 0 {
		return
	}
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	ids := a.reg.match(set)
	if len(ids) == 0 {
		return
	}
	p := Post{TweetID: t.ID, Text: t.Text, ScreenName: t.Author.Handle, DisplayName: t.Author.Name}
	for _, id := range ids {
		a.collect(id, p)
	}
}

// collect keeps a match of query id until the query's next flush, once per post.
func (a *alertActor) collect(id int64, p Post) {
	q := a.reg.get(id)
	if q == nil {
		return
	}
	seen := a.seen[id]
	if seen == nil {
		seen = newRecentSet(rememberPosts)
		a.seen[id] = seen
	}
	if !seen.Add(p.TweetID) {
		return
	}
	pd := a.pending[id]
	if pd == nil {
		pd = &pending{}
		a.pending[id] = pd
	}
	if len(pd.alerts) >= maxPerFlush {
		pd.dropped++
	} else {
		pd.alerts = append(pd.alerts, p)
	}
	if pd.timer == nil {
		now := a.now()
		root, self := a.root, a.self
		pd.timer = a.after(NextFlush(q.CreatedAt, q.every, now).Sub(now), func() {
			root.Send(self, &flush{query: id})
		})
	}
}

// flush publishes what query id collected on its account's topic.
func (a *alertActor) flush(id int64) {
	pd := a.pending[id]
	delete(a.pending, id)
	q := a.reg.get(id)
	if pd == nil || q == nil {
		return
	}
	if pd.dropped > 0 {
		a.log.Warn("search alerts: matches over the per-interval bound dropped", "query_id", id, "dropped", pd.dropped)
	}
	topic := delivery.AccountTopic(protocol.ProductSA, q.AccountID)
	if !a.hub.Listened(topic) {
		return
	}
	for _, p := range pd.alerts {
		data, err := json.Marshal(NewAlert(q.ID, q.Text, p))
		if err != nil {
			a.log.Error("search alerts: encode frame", "err", err)
			continue
		}
		a.hub.Publish(topic, delivery.NewFrame(protocol.AppendTypeDataFrame(nil, FrameType, data), "", 0))
	}
}
