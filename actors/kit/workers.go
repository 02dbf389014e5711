package kit

import "sync"

// Workers is a fixed set of goroutines that run Do on the jobs submitted,
// first come first served: the shape of every engine here that makes
// outside calls for many actors (webhook attempts, Bot API calls) with
// bounded concurrency. Its queue is unbounded; the callers bound it (an
// actor submits only while it has room in flight). Each worker hands its
// result back to the actor by message, inside Do.
type Workers[J any] struct {
	n      int
	do     func(J)
	mu     sync.Mutex
	cond   *sync.Cond
	jobs   []J
	closed bool
	wg     sync.WaitGroup
}

// NewWorkers returns n workers (at least 1) that will run do; Start starts
// them.
func NewWorkers[J any](n int, do func(J)) *Workers[J] {
	w := &Workers[J]{n: max(n, 1), do: do}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// Start runs the workers.
func (w *Workers[J]) Start() {
	for range w.n {
		w.wg.Add(1)
		go w.run()
	}
}

// Submit queues j; after Stop it is dropped.
func (w *Workers[J]) Submit(j J) {
	w.mu.Lock()
	if !w.closed {
		w.jobs = append(w.jobs, j)
		w.cond.Signal()
	}
	w.mu.Unlock()
}

// Stop drops the queued jobs and waits for the running ones (cancel their
// calls first, through the context Do uses, for a quick stop).
func (w *Workers[J]) Stop() {
	w.mu.Lock()
	w.closed = true
	w.jobs = nil
	w.cond.Broadcast()
	w.mu.Unlock()
	w.wg.Wait()
}

func (w *Workers[J]) next() (J, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.jobs) == 0 && !w.closed {
		w.cond.Wait()
	}
	var zero J
	if w.closed {
		return zero, false
	}
	j := w.jobs[0]
	w.jobs[0] = zero // no reference kept to a job done
	w.jobs = w.jobs[1:]
	if len(w.jobs) == 0 {
		w.jobs = nil
	}
	return j, true
}

func (w *Workers[J]) run() {
	defer w.wg.Done()
	for {
		j, ok := w.next()
		if !ok {
			return
		}
		w.do(j)
	}
}
