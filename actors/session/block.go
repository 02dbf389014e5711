package session

import (
	"net/netip"
	"sync"
	"time"
)

// Blocker counts failed logins (spec 2 "IP block"): MaxFailures within Window
// from one IP block that IP for Block on every B2B WebSocket URL; the same
// count per key blocks the key. Retrying while blocked does not extend the
// block. Safe for concurrent use.
type Blocker struct {
	MaxFailures int
	Window      time.Duration
	Block       time.Duration
	// AcceptEvery lets one blocked connection per IP through this often on
	// the realtime URL, to deliver the DISCONNECT.
	AcceptEvery time.Duration

	mu   sync.Mutex
	ips  map[string]*failures
	keys map[string]*failures
}

type failures struct {
	times        []time.Time // within Window, oldest first
	blockedUntil time.Time
	lastAccept   time.Time
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
		ips: map[string]*failures{}, keys: map[string]*failures{}}
}

// IPBlocked reports whether ip is blocked at now, and until when.
func (b *Blocker) IPBlocked(ip string, now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return blockedLocked(b.ips[ip], now)
}

// KeyBlocked reports whether key is blocked at now, and until when.
func (b *Blocker) KeyBlocked(key string, now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return blockedLocked(b.keys[key], now)
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
	f := b.ips[ip]
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
	b.mu.Lock()
	defer b.mu.Unlock()
	remaining = b.failLocked(b.ips, ip, now)
	if key != "" {
		b.failLocked(b.keys, key, now)
	}
	b.gcLocked(now)
	return remaining
}

func (b *Blocker) failLocked(m map[string]*failures, id string, now time.Time) int {
	f := m[id]
	if f == nil {
		f = &failures{}
		m[id] = f
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
		return 0
	}
	return b.MaxFailures - len(f.times)
}

// gcLocked forgets entries with nothing left to remember, once the maps grow.
func (b *Blocker) gcLocked(now time.Time) {
	for _, m := range []map[string]*failures{b.ips, b.keys} {
		if len(m) < 1024 {
			continue
		}
		for k, f := range m {
			if !now.Before(f.blockedUntil) && (len(f.times) == 0 || now.Sub(f.times[len(f.times)-1]) > b.Window) {
				delete(m, k)
			}
		}
	}
}
