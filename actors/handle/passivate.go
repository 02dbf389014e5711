package handle

import "time"

// sweeper runs Router.sweep every tick until stop. The Router owns it.
type sweeper struct {
	quit chan struct{}
	done chan struct{}
}

func startSweeper(r *Router, every time.Duration) *sweeper {
	s := &sweeper{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.quit:
				return
			case <-t.C:
				r.sweep()
			}
		}
	}()
	return s
}

func (s *sweeper) stop() {
	close(s.quit)
	<-s.done
}

// sweep passivates the activations that were sent nothing since the
// previous sweep and have handled all they were sent (a second-chance
// sweep: with one sweep per idle period, an actor goes after one to two
// periods without messages). It returns how many it passivated. Sweeps must
// not run concurrently (one sweeper, or the test).
func (r *Router) sweep() int { return r.passivate(r.idleCandidates()) }

// idleCandidates records what each activation was sent so far and returns
// those that were sent nothing since the previous sweep and have handled it
// all.
func (r *Router) idleCandidates() []*activation {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*activation
	for _, a := range r.live {
		sent := a.sent.Load()
		if a.seen.Swap(sent) == sent && a.handled.Load() == sent {
			out = append(out, a)
		}
	}
	return out
}

// passivate takes each candidate that is still idle out of the live set and
// stops it. Under the write lock no sender is between counting a message and
// sending it, so sent unchanged since the sweep looked and handled equal to
// sent mean that the mailbox holds nothing sent through the router, and
// nothing can be sent to it once it is out of the live set: the next message
// starts a new activation. The poison pill lets a request that reached the
// PID from Get before it be answered.
func (r *Router) passivate(cands []*activation) int {
	if len(cands) == 0 {
		return 0
	}
	stop := cands[:0]
	r.mu.Lock()
	for _, a := range cands {
		sent := a.sent.Load()
		if r.live[a.key] != a || sent != a.seen.Load() || a.handled.Load() != sent {
			continue
		}
		delete(r.live, a.key)
		stop = append(stop, a)
	}
	r.mu.Unlock()
	for _, a := range stop {
		r.root.Poison(a.pid)
	}
	return len(stop)
}
