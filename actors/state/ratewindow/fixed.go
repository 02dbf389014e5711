// Package ratewindow owns the fixed-window request counter behind the REST
// rate limits (state/account) and CA Search's second and minute windows
// (product/casearch). On one node it is a plain counter. On a node of a
// cluster it also holds the other nodes' last announced counts (Heard) and
// admits against the sum, so that a request on any node counts against
// the same window without a round trip; the counts travel on the cluster's
// change feed (engine/cluster.RateCounts). A Fixed has no lock: its owner
// guards it.
package ratewindow

import "time"

// Fixed is a fixed window: the first count after the window ended starts
// the next one at that moment. On a cluster a node that starts a window
// while another node's is live joins that one instead (and a window that
// began later than a live one heard of moves back to it), so the nodes
// converge on one window per key, the one of the first request.
type Fixed struct {
	Start time.Time // the current window's start
	N     int       // this node's count in it
	peers []peer    // other nodes' windows; nil on one node
}

type peer struct {
	node  string
	start time.Time
	n     int
}

// live says whether a window starting at start is still open at now; a
// start ahead of now (another node's clock) counts for up to one window.
func live(start, now time.Time, d time.Duration) bool {
	return now.Sub(start) < d && start.Sub(now) < d
}

// Roll starts a new window at now when the current one ended (or now is
// before it: the clock went back), joining the earliest live window of
// another node instead where there is one. It forgets the other nodes'
// windows that ended.
func (w *Fixed) Roll(now time.Time, d time.Duration) {
	if now.Sub(w.Start) >= d || now.Before(w.Start) {
		w.Start, w.N = now, 0
	}
	if w.peers == nil {
		return // one node: nothing else to do
	}
	kept := w.peers[:0]
	for _, p := range w.peers {
		if !live(p.start, now, d) {
			continue
		}
		if p.start.Before(w.Start) {
			w.Start = p.start
		}
		kept = append(kept, p)
	}
	clear(w.peers[len(kept):])
	w.peers = kept
}

// Total is the count in the window at now: this node's and the other
// nodes' live ones. Call Roll first.
func (w *Fixed) Total(now time.Time, d time.Duration) int {
	t := w.N
	for _, p := range w.peers {
		if live(p.start, now, d) {
			t += p.n
		}
	}
	return t
}

// Wait is how long until every window counted at now has ended: the time
// to wait before the count is 0 again.
func (w *Fixed) Wait(now time.Time, d time.Duration) time.Duration {
	end := w.Start.Add(d)
	for _, p := range w.peers {
		if e := p.start.Add(d); live(p.start, now, d) && e.After(end) {
			end = e
		}
	}
	return end.Sub(now)
}

// Heard notes another node's count n in its window that starts at start,
// replacing what that node said before (a node announces its latest count
// of its current window).
func (w *Fixed) Heard(node string, start time.Time, n int) {
	for i := range w.peers {
		if w.peers[i].node == node {
			w.peers[i].start, w.peers[i].n = start, n
			return
		}
	}
	if w.peers == nil {
		w.peers = make([]peer, 0, 2)
	}
	w.peers = append(w.peers, peer{node: node, start: start, n: n})
}

// Allow counts one request at now unless the window's total has reached
// limit; when it has, wait is the time until every counted window ended.
func (w *Fixed) Allow(now time.Time, d time.Duration, limit int) (ok bool, wait time.Duration) {
	w.Roll(now, d)
	if w.Total(now, d) >= limit {
		return false, w.Wait(now, d)
	}
	w.N++
	return true, 0
}
