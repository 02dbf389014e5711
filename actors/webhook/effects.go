package webhook

import (
	"context"
	"sync"
	"time"
)

// effect is one store write that follows an outcome.
type effect struct {
	kind     effectKind
	ids      []string // effDelete
	id       string   // effAttempts
	n        int      // effAttempts: attempts; effHealth: failures
	endpoint int64    // effDeleteEndpoint, effHealth
	disabled bool     // effHealth
}

type effectKind uint8

const (
	effDelete effectKind = iota
	effAttempts
	effDeleteEndpoint
	effHealth
)

// effects applies outcomes to the store in the order they happened, on one
// goroutine, merging consecutive deletions into one statement. Endpoint
// actors never wait for the store. A write that keeps failing is logged and
// dropped: at worst a delivery is made again after a restart, or a failure
// count restarts lower.
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

func (f *effects) delete(ids ...string) { f.push(effect{kind: effDelete, ids: ids}) }
func (f *effects) attempts(id string, n int) {
	f.push(effect{kind: effAttempts, id: id, n: n})
}
func (f *effects) deleteEndpoint(ep int64) { f.push(effect{kind: effDeleteEndpoint, endpoint: ep}) }
func (f *effects) health(ep int64, failures int, disabled bool) {
	f.push(effect{kind: effHealth, endpoint: ep, n: failures, disabled: disabled})
}

func (f *effects) start() { go f.loop() }

func (f *effects) loop() {
	defer close(f.done)
	for {
		select {
		case <-f.wake:
			f.drain()
		case <-f.quit:
			f.drain()
			return
		}
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
			if q[i].kind == effDelete {
				var ids []string
				for ; i < len(q) && q[i].kind == effDelete; i++ {
					ids = append(ids, q[i].ids...)
				}
				f.apply(effect{kind: effDelete, ids: ids})
				continue
			}
			f.apply(q[i])
			i++
		}
	}
}

// apply writes one effect, trying three times.
func (f *effects) apply(x effect) {
	cfg := &f.e.cfg
	var err error
	for try := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		switch x.kind {
		case effDelete:
			err = cfg.Queue.DeleteDeliveries(ctx, cfg.Scope, x.ids)
		case effAttempts:
			err = cfg.Queue.SetDeliveryAttempts(ctx, cfg.Scope, x.id, x.n)
		case effDeleteEndpoint:
			err = cfg.Queue.DeleteEndpointDeliveries(ctx, cfg.Scope, x.endpoint)
		case effHealth:
			if cfg.Health != nil {
				err = cfg.Health.EndpointHealth(ctx, x.endpoint, x.n, x.disabled)
			}
		}
		cancel()
		if err == nil {
			return
		}
		time.Sleep(time.Duration(try+1) * 100 * time.Millisecond)
	}
	cfg.Log.Error("webhook store write failed", "scope", cfg.Scope, "kind", int(x.kind), "err", err)
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
