package webhook

import (
	"context"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
)

// walBatch bounds the deliveries one store transaction writes.
const walBatch = 1024

// wal writes published deliveries to the store before any endpoint sees
// them. Publish appends to its buffer without blocking; its goroutine
// inserts what has gathered in one transaction, then routes each delivery
// to its endpoint. A store error keeps the deliveries and retries.
type wal struct {
	e       *Engine
	mu      sync.Mutex
	buf     []persistence.WebhookDelivery
	wake    chan struct{}
	quit    chan struct{}
	done    chan struct{}
	closed  bool
	running bool
	added   int64 // rows taken by add, and rows the store took (Flush)
	stored  int64
}

func newWAL(e *Engine) *wal {
	return &wal{e: e, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
}

func (w *wal) add(rows []persistence.WebhookDelivery) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.e.cfg.Log.Warn("webhook deliveries published after stop, dropped", "scope", w.e.cfg.Scope, "count", len(rows))
		return
	}
	w.buf = append(w.buf, rows...)
	w.added += int64(len(rows))
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *wal) start() {
	w.mu.Lock()
	w.running = true
	w.mu.Unlock()
	go w.loop()
}

func (w *wal) take() []persistence.WebhookDelivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := min(len(w.buf), walBatch)
	if n == 0 {
		return nil
	}
	out := make([]persistence.WebhookDelivery, n)
	copy(out, w.buf[:n])
	clear(w.buf[:n])
	w.buf = w.buf[n:]
	if len(w.buf) == 0 {
		w.buf = nil
	}
	return out
}

func (w *wal) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.wake:
		case <-w.quit:
			w.flush(false)
			return
		}
		if !w.flush(true) {
			w.flush(false)
			return
		}
	}
}

// flush writes everything buffered; with route it hands the rows to their
// endpoints and gives up (false) when asked to quit while the store fails.
// Without route it tries for a bounded time, for the shutdown.
func (w *wal) flush(route bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows := w.take()
		if rows == nil {
			return true
		}
		wait := 100 * time.Millisecond
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			fresh, err := w.insert(ctx, rows)
			cancel()
			if err == nil {
				w.mu.Lock()
				w.stored += int64(len(rows))
				w.mu.Unlock()
				rows = fresh // only what the store did not hold yet is routed
				break
			}
			w.e.cfg.Log.Error("webhook queue write failed; retrying", "scope", w.e.cfg.Scope, "count", len(rows), "err", err)
			if !route && time.Now().After(deadline) {
				w.e.cfg.Log.Error("webhook deliveries lost at shutdown: the store did not take them", "scope", w.e.cfg.Scope, "count", len(rows))
				return false
			}
			select {
			case <-time.After(wait):
			case <-w.quit:
				if route {
					w.putBack(rows)
					return false
				}
			}
			wait = min(wait*2, 5*time.Second)
		}
		if route {
			w.routeRows(rows)
		}
	}
}

// newOnly is a Queue that says which deliveries it stored (sqlstore): the
// others were queued or sent before, by a publish that happened again (an
// ingest record replayed after a crash), and are not routed twice.
type newOnly interface {
	InsertNewDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) ([]persistence.WebhookDelivery, error)
}

func (w *wal) insert(ctx context.Context, rows []persistence.WebhookDelivery) ([]persistence.WebhookDelivery, error) {
	if q, ok := w.e.cfg.Queue.(newOnly); ok {
		return q.InsertNewDeliveries(ctx, rows)
	}
	return rows, w.e.cfg.Queue.InsertDeliveries(ctx, rows)
}

func (w *wal) putBack(rows []persistence.WebhookDelivery) {
	w.mu.Lock()
	w.buf = append(rows, w.buf...)
	w.mu.Unlock()
}

// routeRows hands stored rows to their endpoints, grouped, in order.
func (w *wal) routeRows(rows []persistence.WebhookDelivery) {
	by := map[int64][]*delivery{}
	var order []int64
	for i := range rows {
		id := rows[i].EndpointID
		if by[id] == nil {
			order = append(order, id)
		}
		by[id] = append(by[id], &delivery{row: rows[i]})
	}
	for _, id := range order {
		w.e.route(id, by[id])
	}
}

// stop writes what is buffered (without routing it) and ends the goroutine.
func (w *wal) stop() {
	w.mu.Lock()
	w.closed = true
	running := w.running
	w.mu.Unlock()
	close(w.quit)
	if running {
		<-w.done
		return
	}
	w.flush(false) // never started: persist what was published
}
