package cw

import (
	"slices"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/delivery"
)

// The one-time sync (spec 3: "a one-time sync of the communities a target
// already belongs to is sent on first add; afterwards only changes alert").
//
// When an account adds a handle, the communities the handle belongs to (its
// handle actor's memberships) are sent to that account once, as one
// community_change frame with event_type community_joined per community,
// the event shape spec 3 has (it names no other sync shape):
//
//   - on the account's webhook, under its settings (event_types must hold
//     community_joined, min_member_count applies), through the durable
//     webhook queue;
//   - on its CW sockets opened after the add (a socket reads its handle list
//     at connect): those open when the sync is made hear it live, and it is
//     held (SyncHold) for the next socket the account opens that lists the
//     handle, which receives it right after the 101 and takes it. A client
//     that adds targets and then connects thus receives the sync once. The
//     hold is memory: a restart drops what no socket took.
//
// The sync is made at the add when the handle actor already knows the
// handle's memberships; otherwise the account waits in the handle's state
// (HandleState.Awaiting, persisted) until the first membership list is
// heard. Every add syncs, a second add after a remove included: the removal
// ended the watch, and what the client knew of the handle is stale. A
// restart re-sends nothing: a sync made is over, and an awaited one is
// persisted with the handle's state.

// SyncHold is how long a sync waits for a socket to take it.
const SyncHold = 10 * time.Minute

// MaxReplay is the most held sync frames one socket takes at connect: they
// queue before the 101 is written, and a CW socket's outbound queue holds
// 1,024 frames (more would drop it as a slow consumer). What is left waits
// for the account's next socket.
const MaxReplay = 512

// Syncs holds the sync frames made for sockets not yet open: shared memory
// written by the tracker and taken by the sockets' scopes at connect. mu
// guards held; it is never held across I/O.
type Syncs struct {
	mu    sync.Mutex
	now   func() time.Time
	held  map[string]map[string]heldSync // account -> handle -> frames
	swept time.Time                      // the last sweep of every account
}

type heldSync struct {
	at     time.Time
	frames []*delivery.Event
}

// NewSyncs returns an empty hold on the clock now.
func NewSyncs(now func() time.Time) *Syncs {
	if now == nil {
		now = time.Now
	}
	return &Syncs{now: now, held: map[string]map[string]heldSync{}}
}

// put holds frames, the sync of handle h for acct, replacing an older one.
func (s *Syncs) put(acct, h string, frames []*delivery.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	m := s.held[acct]
	if m == nil {
		m = map[string]heldSync{}
		s.held[acct] = m
	}
	m[h] = heldSync{at: s.now(), frames: frames}
}

// Take returns, and forgets, at most max frames held for acct about handles,
// in the order of handles; frames past max stay held.
func (s *Syncs) Take(acct string, handles []string, max int) []*delivery.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	m := s.held[acct]
	if len(m) == 0 {
		return nil
	}
	var out []*delivery.Event
	cut := s.now().Add(-SyncHold)
	for _, h := range handles {
		hs, ok := m[h]
		if !ok {
			continue
		}
		if hs.at.Before(cut) {
			delete(m, h)
			continue
		}
		n := min(len(hs.frames), max-len(out))
		out = append(out, hs.frames[:n]...)
		if n < len(hs.frames) {
			hs.frames = hs.frames[n:]
			m[h] = hs
			break
		}
		delete(m, h)
	}
	if len(m) == 0 {
		delete(s.held, acct)
	}
	return out
}

// expire drops what was held longer than SyncHold, sweeping at most once a
// minute; s.mu is held.
func (s *Syncs) expire() {
	now := s.now()
	if now.Sub(s.swept) < time.Minute {
		return
	}
	s.swept = now
	cut := now.Add(-SyncHold)
	for acct, m := range s.held {
		for h, hs := range m {
			if hs.at.Before(cut) {
				delete(m, h)
			}
		}
		if len(m) == 0 {
			delete(s.held, acct)
		}
	}
}

// syncChanges are the sync of memberships ms as joins detected at at.
func syncChanges(ms []Membership, at int64) []Change {
	out := make([]Change, 0, len(ms))
	for _, m := range ms {
		out = append(out, Change{Kind: Joined, Community: m.Community, At: at, JoinedAt: m.JoinedAt})
	}
	return out
}

// await adds acct to the accounts waiting for h's sync.
func (s *HandleState) await(acct string) {
	if !slices.Contains(s.Awaiting, acct) {
		s.Awaiting = append(s.Awaiting, acct)
	}
}
