package webhook

import (
	"context"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// effect is one store write that follows an outcome.
type effect struct {
	kind     effectKind
	ids      []string                   // effDrop
	attempt  persistence.WebhookAttempt // effRecord
	endpoint int64                      // effDropEndpoint, effHealth
	n        int                        // effHealth: failures
	disabled bool                       // effHealth
	at       time.Time                  // effDrop, effDropEndpoint
	pid      *actor.PID                 // effLoad: who hears
	limit    int                        // effLoad
	held     map[string]struct{}        // effLoad: ids left out
	gen      int                        // effLoad: the asker's ownership
	reached  chan struct{}              // effBarrier: closed when reached
}

type effectKind uint8

const (
	effRecord effectKind = iota
	effDrop
	effDropEndpoint
	effHealth
	effLoad
	effBarrier
)

// effects applies outcomes to the store in the order they happened, on one
// goroutine, merging consecutive attempts (and consecutive drops) into one
// transaction. Endpoint actors never wait for the store. A write that keeps
// failing is logged and dropped: at worst a delivery is made again after a
// restart, a failure count restarts lower, or the log misses an attempt.
type effects struct {
	e    *Engine
	mu   sync.Mutex
	q    []effect
	wake chan struct{}
	quit chan struct{}
	done chan struct{}
}

func newEffects(e *Engine) *effects {
	return &effects{e: e, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
}

func (f *effects) push(x effect) {
	f.mu.Lock()
	f.q = append(f.q, x)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// record logs one attempt of d with its result, and the delivery's state
// after it.
func (f *effects) record(d *delivery, res result, as string) {
	f.push(effect{kind: effRecord, attempt: persistence.WebhookAttempt{DeliveryID: d.row.DeliveryID, At: res.at,
		StatusCode: res.status, Latency: res.latency, Error: res.err, Result: as, Attempts: d.row.Attempts, Seq: d.row.Seq}})
}

func (f *effects) drop(ids ...string) {
	f.push(effect{kind: effDrop, ids: ids, at: f.e.cfg.Now()})
}

func (f *effects) dropEndpoint(ep int64) {
	f.push(effect{kind: effDropEndpoint, endpoint: ep, at: f.e.cfg.Now()})
}

func (f *effects) health(ep int64, failures int, disabled bool) {
	f.push(effect{kind: effHealth, endpoint: ep, n: failures, disabled: disabled})
}

// load reads back up to limit of endpoint's oldest queued deliveries not in
// held, after every write pushed before it, and tells pid (loaded).
func (f *effects) load(ep int64, pid *actor.PID, limit int, held map[string]struct{}, gen int) {
	f.push(effect{kind: effLoad, endpoint: ep, pid: pid, limit: limit, held: held, gen: gen})
}

// barrier closes reached once every write pushed before it was applied (or
// given up).
func (f *effects) barrier(reached chan struct{}) {
	f.push(effect{kind: effBarrier, reached: reached})
}

func (f *effects) start() { go f.loop() }

// linger is how long the effects goroutine lets outcomes gather before it
// writes them: nothing waits on these writes (the delivery is made), and
// one transaction of many rows costs the store far less than many of few.
const linger = 20 * time.Millisecond

func (f *effects) loop() {
	defer close(f.done)
	t := time.NewTimer(linger)
	t.Stop()
	for {
		select {
		case <-f.wake:
		case <-f.quit:
			f.drain()
			return
		}
		t.Reset(linger)
		select {
		case <-t.C:
		case <-f.quit:
			t.Stop()
			f.drain()
			return
		}
		f.drain()
	}
}

func (f *effects) drain() {
	for {
		f.mu.Lock()
		q := f.q
		f.q = nil
		f.mu.Unlock()
		if len(q) == 0 {
			return
		}
		for i := 0; i < len(q); {
			switch q[i].kind {
			case effRecord:
				var as []persistence.WebhookAttempt
				for ; i < len(q) && q[i].kind == effRecord; i++ {
					as = append(as, q[i].attempt)
				}
				f.apply(func(ctx context.Context, cfg *Config) error { return cfg.Queue.RecordAttempts(ctx, cfg.Scope, as) })
			case effDrop:
				var ids []string
				at := q[i].at
				for ; i < len(q) && q[i].kind == effDrop; i++ {
					ids = append(ids, q[i].ids...)
				}
				f.apply(func(ctx context.Context, cfg *Config) error { return cfg.Queue.DropDeliveries(ctx, cfg.Scope, ids, at) })
			case effDropEndpoint:
				x := q[i]
				f.apply(func(ctx context.Context, cfg *Config) error {
					return cfg.Queue.DropEndpointDeliveries(ctx, cfg.Scope, x.endpoint, x.at)
				})
				i++
			case effLoad:
				f.readBack(q[i])
				i++
			case effBarrier:
				close(q[i].reached)
				i++
			case effHealth:
				x := q[i]
				f.apply(func(ctx context.Context, cfg *Config) error {
					if cfg.Health == nil {
						return nil
					}
					return cfg.Health.EndpointHealth(ctx, x.endpoint, x.n, x.disabled)
				})
				i++
			}
		}
	}
}

// readBack runs one read-back (effects.load) and answers it.
func (f *effects) readBack(x effect) {
	e := f.e
	if e.closing.Load() {
		return // what is queued stays stored for the next start
	}
	ask := x.limit + len(x.held)
	var rows []persistence.WebhookDelivery
	failed := !f.apply(func(ctx context.Context, cfg *Config) error {
		var err error
		rows, err = cfg.Queue.ListEndpointDeliveries(ctx, cfg.Scope, x.endpoint, ask)
		return err
	})
	m := &loaded{failed: failed, more: len(rows) == ask, gen: x.gen}
	for i := range rows {
		if _, ok := x.held[rows[i].DeliveryID]; ok {
			continue
		}
		if len(m.ds) == x.limit {
			m.more = true
			break
		}
		m.ds = append(m.ds, &delivery{row: rows[i]})
	}
	e.root.Send(x.pid, m)
}

// apply runs one store write (or read), trying three times, and reports
// whether it succeeded.
func (f *effects) apply(write func(ctx context.Context, cfg *Config) error) bool {
	cfg := &f.e.cfg
	var err error
	for try := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = write(ctx, cfg)
		cancel()
		if err == nil {
			return true
		}
		time.Sleep(time.Duration(try+1) * 100 * time.Millisecond)
	}
	cfg.Log.Error("webhook store write failed", "scope", cfg.Scope, "err", err)
	return false
}

// stop applies what is queued and ends the goroutine (Start must have run;
// otherwise it applies the queue itself).
func (f *effects) stop() {
	f.e.mu.Lock()
	started := f.e.started
	f.e.mu.Unlock()
	close(f.quit)
	if started {
		<-f.done
		return
	}
	f.drain()
}
