package kit

import (
	"sync"
	"testing"
)

// TestWorkersRunEveryJob: every job submitted before Stop runs once, on at
// most n goroutines at a time.
func TestWorkersRunEveryJob(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	running, most := 0, 0
	var wg sync.WaitGroup
	w := NewWorkers(3, func(j int) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		mu.Lock()
		seen[j]++
		running--
		mu.Unlock()
		wg.Done()
	})
	w.Start()
	wg.Add(100)
	for i := range 100 {
		w.Submit(i)
	}
	wg.Wait()
	w.Stop()
	if len(seen) != 100 || most > 3 {
		t.Fatalf("%d distinct jobs ran (want 100), at most %d at once (want <= 3)", len(seen), most)
	}
	for j, n := range seen {
		if n != 1 {
			t.Errorf("job %d ran %d times", j, n)
		}
	}
}

// TestWorkersStopDropsQueued: Stop waits for the running job and drops the
// queued ones; a Submit after Stop is dropped too.
func TestWorkersStopDropsQueued(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var ran []int
	w := NewWorkers(1, func(j int) {
		if j == 0 {
			close(started)
			<-release
		}
		mu.Lock()
		ran = append(ran, j)
		mu.Unlock()
	})
	w.Start()
	w.Submit(0)
	<-started
	w.Submit(1)
	w.Submit(2)
	stopped := make(chan struct{})
	go func() { w.Stop(); close(stopped) }()
	// Stop has dropped the queue once Submit is refused; then let job 0 end.
	for {
		w.mu.Lock()
		closed := w.closed
		w.mu.Unlock()
		if closed {
			break
		}
	}
	w.Submit(3)
	close(release)
	<-stopped
	if len(ran) != 1 || ran[0] != 0 {
		t.Fatalf("ran %v, want [0]", ran)
	}
}
