package engine

import (
	"net/url"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/edge"
	"github.com/alertd/alertd/edge/api/console"
	"github.com/alertd/alertd/protocol"
)

// wireConsole builds the operator console's API over what deps and the
// engine hold, and its rate sampler, which Start starts once the listener
// is bound and Close stops. It reads the router, the server and the
// transport when asked, so it may be built before them.
func (e *Engine) wireConsole(deps *edge.Deps) *console.API {
	queues := []console.WebhookQueue{{Product: protocol.ProductTweetAlerts, Stats: e.xgHooks.Stats, Endpoints: e.xgHooks.Endpoints}}
	if h, ok := deps.CW.Hooks.(interface {
		Stats(protocol.Product) webhook.Stats
	}); ok {
		for _, p := range []protocol.Product{protocol.ProductCW, protocol.ProductCT, protocol.ProductET} {
			queues = append(queues, console.WebhookQueue{Product: p, Stats: func() webhook.Stats { return h.Stats(p) }})
		}
	}
	reg := deps.TweetAlerts.Registry
	e.sampler = console.NewSampler(func() console.Counters {
		var c console.Counters
		c.IngestAccepted, c.IngestRejected = e.ingested.Load() // HTTP ingest and the connectors
		c.Frames = e.ws.Stats().FramesWritten
		for _, q := range queues {
			s := q.Stats()
			c.WebhooksDelivered += uint64(s.Delivered)
			c.WebhooksFailed += uint64(s.Failed)
		}
		return c
	})
	stats := e.sessions.Stats
	return console.New(console.Deps{
		Store: e.store, Keys: e.registry, Webhooks: queues, Sampler: e.sampler, Log: e.log,
		Chat: func() (console.ChatQueue, bool) {
			st, ok := e.ChatStats()
			if !ok {
				return console.ChatQueue{}, false
			}
			return console.ChatQueue{Queued: st.Queued, Chats: e.chat.Chats.Count(), Sent: st.Sent, Failed: st.Failed,
				RateLimited: st.RateLimited, Retried: st.Retried, Blocked: st.Blocked, Digests: st.Digests}, true
		},
		Sockets: func() map[string]int64 {
			m := map[string]int64{}
			for _, k := range []session.SocketKind{session.KindRealtime, session.KindTweetOnly, session.KindTweetAlerts, session.KindProduct} {
				m[k.String()] = stats.Open(k)
			}
			return m
		},
		Closes: func(f func(kind, reason string, n uint64)) {
			stats.EachClose(func(k session.SocketKind, r session.CloseReason, n uint64) { f(k.String(), r.String(), n) })
		},
		Backlog: func() int64 { return e.router.Backlog() },
		Failing: func() []console.FailingEndpoint {
			var out []console.FailingEndpoint
			if reg == nil {
				return out
			}
			for _, w := range reg.AllWebhooks() {
				if w.ConsecutiveFailures > 0 {
					out = append(out, console.FailingEndpoint{Product: protocol.ProductTweetAlerts, ID: w.ID,
						AccountID: w.AccountID, URL: withoutQuery(w.URL), ConsecutiveFailures: w.ConsecutiveFailures})
				}
			}
			return out
		},
	})
}

// withoutQuery drops a URL's query and fragment, where receivers often put
// a token the console should not show.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}
