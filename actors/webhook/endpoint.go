package webhook

import (
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// delivery is one queued delivery as its endpoint actor holds it.
type delivery struct {
	row persistence.WebhookDelivery
}

// Messages of the endpoint actor.
type (
	// deliver hands newly stored (or reloaded) deliveries to the endpoint.
	deliver struct{ ds []*delivery }
	// attemptDone is a worker's report on one attempt.
	attemptDone struct {
		d   *delivery
		res result
	}
	// retryDue says a delivery's backoff has passed.
	retryDue struct{ d *delivery }
	// setEndpoint changes the URL, secret or headers.
	setEndpoint struct{ ep Endpoint }
)

// endpointActor owns one endpoint: its queue, its retries in backoff, the
// attempts in flight and the consecutive-failure count.
type endpointActor struct {
	e        *Engine
	ep       Endpoint
	queue    []*delivery
	waiting  map[*delivery]*time.Timer
	inflight int
	done     bool // disabled or stopping: nothing more is attempted
}

func newEndpointActor(e *Engine, ep Endpoint) *endpointActor {
	return &endpointActor{e: e, ep: ep, waiting: map[*delivery]*time.Timer{}}
}

func (a *endpointActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *deliver:
		a.queue = append(a.queue, m.ds...)
		a.pump(c)
	case *attemptDone:
		a.inflight = max(a.inflight-1, 0) // an attempt of a failed instance may come back to its successor
		if !a.done {
			a.finish(c, m.d, m.res)
			a.pump(c)
		}
	case *retryDue:
		if _, ok := a.waiting[m.d]; ok && !a.done {
			delete(a.waiting, m.d)
			a.queue = append([]*delivery{m.d}, a.queue...) // retries go first
			a.pump(c)
		}
	case *setEndpoint:
		failures := a.ep.Failures
		a.ep = m.ep
		a.ep.Failures = failures // the actor's count is the current one
	case *actor.Stopping:
		a.halt()
	case *actor.Started, *actor.Stopped, *actor.Restarting:
	default:
		a.e.cfg.Log.Warn("webhook endpoint: unexpected message", "endpoint", a.ep.ID)
	}
}

// pump starts attempts while the endpoint has room.
func (a *endpointActor) pump(c actor.Context) {
	for !a.done && a.inflight < a.e.cfg.Policy.PerEndpoint && len(a.queue) > 0 {
		d := a.queue[0]
		a.queue[0] = nil
		a.queue = a.queue[1:]
		d.row.Attempts++
		a.inflight++
		a.e.pool.Submit(job{ep: a.ep, d: d, pid: c.Self()})
	}
	if len(a.queue) == 0 {
		a.queue = nil // let the backing array go
	}
}

// finish applies one attempt's outcome and logs the attempt.
func (a *endpointActor) finish(c actor.Context, d *delivery, res result) {
	e := a.e
	switch res.out {
	case outcomeAborted:
		return // the engine is stopping; the delivery stays stored
	case outcomeOK:
		e.delivered.Add(1)
		e.latency.Observe(e.cfg.Now().Sub(d.row.CreatedAt))
		e.effects.record(d, res, persistence.AttemptOK)
		if a.ep.Failures > 0 {
			a.ep.Failures = 0
			e.noteFailures(a.ep.ID, 0)
			e.effects.health(a.ep.ID, 0, false)
		}
		return
	case outcomeRetry:
		if d.row.Attempts < e.cfg.Policy.Attempts {
			e.retried.Add(1)
			e.effects.record(d, res, persistence.AttemptRetry)
			self := c.Self()
			a.waiting[d] = time.AfterFunc(e.cfg.Policy.backoff(d.row.Attempts), func() {
				if !e.closing.Load() {
					e.root.Send(self, &retryDue{d: d})
				}
			})
			return
		}
	}
	// A failed delivery: 4xx or another final answer, or retries spent.
	e.failed.Add(1)
	e.effects.record(d, res, persistence.AttemptFailed)
	a.ep.Failures++
	e.noteFailures(a.ep.ID, a.ep.Failures)
	if n := e.cfg.Policy.DisableAfter; n > 0 && a.ep.Failures >= n {
		a.halt()
		a.queue = nil
		e.disabled.Add(1)
		e.effects.dropEndpoint(a.ep.ID)
		e.effects.health(a.ep.ID, a.ep.Failures, true)
		e.forget(a.ep.ID, c.Self())
		e.cfg.Log.Info("webhook endpoint disabled", "scope", e.cfg.Scope, "endpoint", a.ep.ID, "failures", a.ep.Failures)
		return
	}
	e.effects.health(a.ep.ID, a.ep.Failures, false)
}

// halt stops attempting: backoff timers are cancelled (their deliveries stay
// stored for the next start, unless the endpoint is being dropped).
func (a *endpointActor) halt() {
	a.done = true
	for d, t := range a.waiting {
		t.Stop()
		delete(a.waiting, d)
	}
}
