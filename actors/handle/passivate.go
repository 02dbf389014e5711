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

// sweep passivates the activations that were told nothing since the
// previous sweep and have nothing pending (a second-chance sweep: with one
// sweep per idle period, an actor goes after one to two periods without
// messages). It returns how many it passivated.
func (r *Router) sweep() int { return r.passivate(r.idleCandidates()) }

// idleCandidates clears every activation's used flag and returns those whose
// flag was clear already and that have nothing pending.
func (r *Router) idleCandidates() []*activation {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*activation
	for _, a := range r.live {
		if !a.used.Swap(false) && a.pending.Load() == 0 {
			out = append(out, a)
		}
	}
	return out
}

// passivate takes each candidate that is still idle out of the live set and
// stops it. Under the write lock no sender is between counting a message and
// sending it, so pending == 0 and used == false mean that the mailbox holds
// nothing told through the router, and nothing can be told to it once it is
// out of the live set: the next message starts a new activation. The poison
// pill lets a request that reached the PID from Get before it be answered.
func (r *Router) passivate(cands []*activation) int {
	if len(cands) == 0 {
		return 0
	}
	stop := cands[:0]
	r.mu.Lock()
	for _, a := range cands {
		if r.live[a.key] != a || a.used.Load() || a.pending.Load() != 0 {
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
