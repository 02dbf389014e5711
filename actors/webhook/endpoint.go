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
	// deliver hands newly stored (or reloaded, or requeued) deliveries to
	// the endpoint. spilled: the store holds more of its queued deliveries
	// than these (Start read back only the oldest).
	deliver struct {
		ds      []*delivery
		spilled bool
	}
	// loaded answers a read-back (effects.load): the endpoint's oldest
	// queued deliveries that it did not hold when it asked. more: the store
	// may hold further ones; failed: the read failed.
	loaded struct {
		ds           []*delivery
		more, failed bool
		gen          int // the ownership it was asked under
	}
	// loadDue asks for another read-back after a failed one.
	loadDue struct{}
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
//
// Memory is bounded: the queue holds at most Config.MemoryQueue
// deliveries. Past that the endpoint is spilled: what arrives stays only in
// the store (where the write-ahead put it), and once the queue is down to
// half, the endpoint reads its oldest queued deliveries back through the
// effects goroutine, which applies every outcome reported before the read,
// so nothing finished is read back, and leaves out what the endpoint holds.
type endpointActor struct {
	e        *Engine
	ep       Endpoint
	retries  []*delivery // due again after backoff: they go first
	queue    []*delivery
	waiting  map[*delivery]*time.Timer
	inflight map[*delivery]struct{}
	done     bool // disabled or stopping: nothing more is attempted

	spilled bool // the store holds queued deliveries of this endpoint that memory does not
	loading bool // a read-back is under way
	// missed: a delivery arrived and was left in the store while loading,
	// so the read-back may not hold it and the endpoint stays spilled.
	missed bool
	// recent are the ids of the last read-back: a deliver that brings one
	// of them again (routed by the write-ahead while the read ran) is
	// already held.
	recent map[string]struct{}

	// Ownership (owned.go): only the owner of an endpoint attempts its
	// deliveries; always true without Config.Owners.
	owned  bool
	woken  bool            // another node stored deliveries while not owned
	gen    int             // counts disowns: a read-back answers one ownership
	yields []chan struct{} // disowns waiting for the attempts in flight
}

func newEndpointActor(e *Engine, ep Endpoint) *endpointActor {
	a := &endpointActor{e: e, ep: ep, waiting: map[*delivery]*time.Timer{}, inflight: map[*delivery]struct{}{},
		owned: e.owns(ep.ID)}
	// On a node of a cluster, an endpoint put while owned (registered
	// on another node, heard late) may have deliveries stored already.
	a.spilled = e.cfg.Owners != nil && a.owned
	return a
}

func (a *endpointActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *deliver:
		if !a.owned {
			return // stored; the owner reads it back
		}
		a.take(m.ds)
		a.spilled = a.spilled || m.spilled
		a.pump(c)
	case *loaded:
		if m.gen != a.gen {
			return // asked before a disown
		}
		a.onLoaded(c, m)
		a.pump(c)
	case *loadDue:
		a.pump(c)
	case *attemptDone:
		delete(a.inflight, m.d) // an attempt of a failed instance may come back to its successor: not held here
		if !a.done {
			a.finish(c, m.d, m.res)
			a.pump(c)
		}
		a.yielded()
	case *retryDue:
		if _, ok := a.waiting[m.d]; ok && !a.done && a.owned {
			delete(a.waiting, m.d)
			a.retries = append(a.retries, m.d)
			a.pump(c)
		}
	case *setEndpoint:
		failures := a.ep.Failures
		a.ep = m.ep
		a.ep.Failures = failures // the actor's count is the current one
	case *actor.Stopping:
		a.halt()
	case *actor.Started:
		a.pump(c) // reads back what the store holds when spilled
	case *actor.Stopped, *actor.Restarting:
	default:
		if !a.onOwnership(c, m) {
			a.e.cfg.Log.Warn("webhook endpoint: unexpected message", "endpoint", a.ep.ID)
		}
	}
}

// take queues deliveries while the queue has room; the others stay in the
// store for a read-back.
func (a *endpointActor) take(ds []*delivery) {
	for _, d := range ds {
		if _, ok := a.recent[d.row.DeliveryID]; ok {
			continue
		}
		if a.spilled || len(a.queue) >= a.e.cfg.MemoryQueue {
			a.spilled = true
			a.missed = a.missed || a.loading
			a.e.spilled.Add(1)
			continue
		}
		a.queue = append(a.queue, d)
	}
}

// onLoaded queues what a read-back brought; the endpoint is whole again
// when the store held nothing more and nothing was left there meanwhile.
func (a *endpointActor) onLoaded(c actor.Context, m *loaded) {
	a.loading = false
	if a.done {
		return
	}
	if m.failed {
		self := c.Self()
		time.AfterFunc(time.Second, func() {
			if !a.e.closing.Load() {
				a.e.root.Send(self, &loadDue{})
			}
		})
		return
	}
	a.recent = make(map[string]struct{}, len(m.ds))
	for _, d := range m.ds {
		d.row.Attempts = min(d.row.Attempts, a.e.cfg.Policy.Attempts-1)
		a.recent[d.row.DeliveryID] = struct{}{}
		a.queue = append(a.queue, d)
	}
	if !m.more && !a.missed {
		a.spilled = false
	}
}

// pump starts attempts while the endpoint has room, and asks for a
// read-back once a spilled endpoint's queue is down to half.
func (a *endpointActor) pump(c actor.Context) {
	for !a.done && a.owned && len(a.inflight) < a.e.cfg.Policy.PerEndpoint && len(a.retries)+len(a.queue) > 0 {
		var d *delivery
		if len(a.retries) > 0 {
			d = a.retries[0]
			a.retries[0] = nil
			a.retries = a.retries[1:]
		} else {
			d = a.queue[0]
			a.queue[0] = nil
			a.queue = a.queue[1:]
		}
		d.row.Attempts++
		a.inflight[d] = struct{}{}
		a.e.pool.Submit(job{ep: a.ep, d: d, pid: c.Self()})
	}
	if len(a.queue) == 0 {
		a.queue = nil // let the backing array go
	}
	if len(a.retries) == 0 {
		a.retries = nil
	}
	if a.spilled && !a.loading && !a.done && a.owned && len(a.queue) <= a.e.cfg.MemoryQueue/2 {
		a.loading, a.missed = true, false
		a.e.effects.load(a.ep.ID, c.Self(), a.e.cfg.MemoryQueue-len(a.queue), a.held(), a.gen)
	}
}

// held are the ids of every delivery the endpoint holds: queued, in
// flight, in backoff.
func (a *endpointActor) held() map[string]struct{} {
	ids := make(map[string]struct{}, len(a.retries)+len(a.queue)+len(a.inflight)+len(a.waiting))
	for _, d := range a.retries {
		ids[d.row.DeliveryID] = struct{}{}
	}
	for _, d := range a.queue {
		ids[d.row.DeliveryID] = struct{}{}
	}
	for d := range a.inflight {
		ids[d.row.DeliveryID] = struct{}{}
	}
	for d := range a.waiting {
		ids[d.row.DeliveryID] = struct{}{}
	}
	return ids
}

// finish applies one attempt's outcome and logs the attempt.
func (a *endpointActor) finish(c actor.Context, d *delivery, res result) {
	e := a.e
	switch res.out {
	case outcomeAborted:
		return // the engine is stopping; the delivery stays stored
	case outcomeOK:
		delete(a.recent, d.row.DeliveryID) // a redelivery of it is new
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
			if !a.owned {
				return // stored with its attempt count: the new owner retries it
			}
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
	delete(a.recent, d.row.DeliveryID) // a redelivery of it is new
	e.failed.Add(1)
	e.effects.record(d, res, persistence.AttemptFailed)
	a.ep.Failures++
	e.noteFailures(a.ep.ID, a.ep.Failures)
	if n := e.cfg.Policy.DisableAfter; n > 0 && a.ep.Failures >= n {
		a.halt()
		a.queue, a.retries = nil, nil
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
