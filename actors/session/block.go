package session

import (
	"crypto/sha256"
	"net/netip"
	"sync"
	"time"
)

// Blocker counts failed logins (spec 2 "IP block"): MaxFailures within Window
// from one IP block that IP for Block on every B2B WebSocket URL; the same
// count per key blocks the key. Retrying while blocked does not extend the
// block. Safe for concurrent use.
//
// Memory and time stay bounded whatever clients send: each table holds at
// most MaxEntries entries (MaxFailures times each), keys are held by their
// SHA-256 (a presented key may be long, and is a secret), and entries are
// forgotten through an expiry queue, a few per failure: O(1) amortized per
// failure, no scan. A table full of live entries forgets the one that
// expires first (an attacker needs MaxEntries addresses within the hour to
// shorten one block).
type Blocker struct {
	MaxFailures int
	Window      time.Duration
	Block       time.Duration
	// AcceptEvery lets one blocked connection per IP through this often on
	// the realtime URL, to deliver the DISCONNECT.
	AcceptEvery time.Duration
	// MaxEntries bounds each table (addresses, keys); DefaultMaxEntries
	// when 0.
	MaxEntries int
	// Shared, when set, hears every failed login recorded by Fail (the
	// address as counted, and the key's SHA-256; "" without a key), after
	// mu: a cluster counts it on the other nodes (FailElsewhere). It must
	// not block.
	Shared func(ip, keyID string)

	mu   sync.Mutex // guards ips and keys
	ips  failTable
	keys failTable
}

// DefaultMaxEntries is the default bound of each Blocker table.
const DefaultMaxEntries = 100_000

type failures struct {
	times        []time.Time // within Window, oldest first; at most MaxFailures
	blockedUntil time.Time
	lastAccept   time.Time
	expires      time.Time // nothing left to remember after it
}

// failTable is one table of the Blocker and its expiry queue: an item per
// change of an entry's expiry, in the order made (expiries only grow, and
// Window and Block are fixed, so the queue is nearly sorted; an item whose
// entry has a later expiry is stale and skipped).
type failTable struct {
	m    map[string]*failures
	q    []expiryItem
	head int
}

type expiryItem struct {
	id string
	at time.Time
}

func (t *failTable) get(id string) *failures { return t.m[id] }

// touch records f's (new) expiry.
func (t *failTable) touch(id string, f *failures, at time.Time) {
	f.expires = at
	t.q = append(t.q, expiryItem{id, at})
}

// sweep forgets up to n entries that expired by now.
func (t *failTable) sweep(now time.Time, n int) {
	for ; n > 0 && t.head < len(t.q); n-- {
		it := t.q[t.head]
		if it.at.After(now) {
			break
		}
		t.pop()
		if f := t.m[it.id]; f != nil && !f.expires.After(now) {
			delete(t.m, it.id)
		}
	}
}

// evictOne forgets the entry the queue names first (full table).
func (t *failTable) evictOne() {
	for t.head < len(t.q) {
		it := t.pop()
		if f := t.m[it.id]; f != nil && f.expires.Equal(it.at) {
			delete(t.m, it.id)
			return
		}
	}
}

func (t *failTable) pop() expiryItem {
	it := t.q[t.head]
	t.q[t.head] = expiryItem{}
	t.head++
	if t.head > 1024 && t.head*2 > len(t.q) { // compact: amortized O(1)
		t.q = append(t.q[:0], t.q[t.head:]...)
		t.head = 0
	}
	return it
}

// BlockAddr is what the IP block counts a client address under: an IPv4
// address itself, an IPv6 address its /64 (one subscriber's network hands
// out a whole /64, so counting single addresses would let it rotate past
// the block); "" for an unknown address.
func BlockAddr(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return ""
	case ip.Is4():
		return ip.String()
	}
	return netip.PrefixFrom(ip, 64).Masked().String()
}

// NewBlocker returns a blocker with the given limits.
func NewBlocker(max int, window, block, acceptEvery time.Duration) *Blocker {
	return &Blocker{MaxFailures: max, Window: window, Block: block, AcceptEvery: acceptEvery,
		ips: failTable{m: map[string]*failures{}}, keys: failTable{m: map[string]*failures{}}}
}

// IPBlocked reports whether ip is blocked at now, and until when.
func (b *Blocker) IPBlocked(ip string, now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return blockedLocked(b.ips.get(ip), now)
}

// KeyBlocked reports whether key is blocked at now, and until when.
func (b *Blocker) KeyBlocked(key string, now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.keys.m) == 0 {
		return time.Time{}, false // the usual case: no hash to compute
	}
	return blockedLocked(b.keys.get(keyID(key)), now)
}

func blockedLocked(f *failures, now time.Time) (time.Time, bool) {
	if f == nil || !now.Before(f.blockedUntil) {
		return time.Time{}, false
	}
	return f.blockedUntil, true
}

// AcceptBlocked reports whether a blocked ip may be let through now to
// receive its DISCONNECT (about once per AcceptEvery), and records it.
func (b *Blocker) AcceptBlocked(ip string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.ips.get(ip)
	if f == nil || now.Sub(f.lastAccept) < b.AcceptEvery {
		return false
	}
	f.lastAccept = now
	return true
}

// Fail records a failed login from ip with key (empty when none was sent).
// It returns how many attempts ip has left before the block (0 when this
// failure blocked it).
func (b *Blocker) Fail(ip, key string, now time.Time) (remaining int) {
	id := ""
	if key != "" {
		id = keyID(key)
	}
	remaining = b.fail(ip, id, now)
	if b.Shared != nil {
		b.Shared(ip, id)
	}
	return remaining
}

// FailElsewhere records a failed login another node saw (Shared there):
// ip as counted and the key's SHA-256 ("" without a key).
func (b *Blocker) FailElsewhere(ip, keyID string, now time.Time) { b.fail(ip, keyID, now) }

func (b *Blocker) fail(ip, id string, now time.Time) (remaining int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ips.sweep(now, 2)
	b.keys.sweep(now, 2)
	remaining = b.failLocked(&b.ips, ip, now)
	if id != "" {
		b.failLocked(&b.keys, id, now)
	}
	return remaining
}

// keyID is what the key table holds of a key: its SHA-256, never the key.
func keyID(key string) string {
	h := sha256.Sum256([]byte(key))
	return string(h[:])
}

func (b *Blocker) failLocked(t *failTable, id string, now time.Time) int {
	f := t.m[id]
	if f == nil {
		max := b.MaxEntries
		if max <= 0 {
			max = DefaultMaxEntries
		}
		if len(t.m) >= max {
			t.evictOne()
		}
		f = &failures{}
		t.m[id] = f
	}
	if now.Before(f.blockedUntil) {
		return 0 // already blocked: retrying does not extend it
	}
	cut := now.Add(-b.Window)
	i := 0
	for i < len(f.times) && !f.times[i].After(cut) {
		i++
	}
	f.times = append(f.times[i:], now)
	if len(f.times) >= b.MaxFailures {
		f.blockedUntil = now.Add(b.Block)
		f.times = nil
		t.touch(id, f, f.blockedUntil)
		return 0
	}
	t.touch(id, f, now.Add(b.Window))
	return b.MaxFailures - len(f.times)
}
