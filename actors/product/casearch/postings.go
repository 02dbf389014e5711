package casearch

import (
	"math"
	"strconv"
)

// Key orders posts: by creation time, then by a number derived from the id
// (TieOf), so the order is total and the same in memory and in the store.
// Newest first means descending keys.
type Key struct {
	At  int64 // created_at, epoch ms
	Tie int64
}

// Less reports whether k sorts before o (is older).
func (k Key) Less(o Key) bool { return k.At < o.At || k.At == o.At && k.Tie < o.Tie }

// TieOf is the tie-breaker of an id: the id itself when it is a decimal
// number that fits (platform ids are), else a 63-bit FNV-1a hash of it.
func TieOf(id string) int64 {
	if n := len(id); n > 0 && n <= 19 {
		digits := true
		for i := 0; i < n; i++ {
			if id[i] < '0' || id[i] > '9' {
				digits = false
				break
			}
		}
		if digits {
			if v, err := strconv.ParseInt(id, 10, 64); err == nil {
				return v
			}
		}
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return int64(h & math.MaxInt64)
}

// plist is the posting list of one term: slot numbers in ascending key
// order. Entries before head were evicted; the array is compacted when the
// dead prefix is large.
type plist struct {
	s    []uint32
	head int
	hash uint64 // the term's hash, to drop the list when it empties
	gone bool   // emptied and on the free list
}

func (l *plist) size() int { return len(l.s) - l.head }

// insert places slot at its key position; posts mostly arrive in time
// order, so this is nearly always an append.
func (l *plist) insert(slot uint32, k Key, keyOf func(uint32) Key) {
	n := len(l.s)
	if n == l.head || keyOf(l.s[n-1]).Less(k) {
		l.s = append(l.s, slot)
		return
	}
	i := l.upper(l.head, n, k, keyOf) // first entry with a key above k
	l.s = append(l.s, 0)
	copy(l.s[i+1:], l.s[i:n])
	l.s[i] = slot
}

// upper returns the first index in [lo, hi) whose key is above k (hi if none).
func (l *plist) upper(lo, hi int, k Key, keyOf func(uint32) Key) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if k.Less(keyOf(l.s[m])) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// below returns the first index in [l.head, hi) whose key is not below k:
// entries before it are older than k.
func (l *plist) below(hi int, k Key, keyOf func(uint32) Key) int {
	lo := l.head
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyOf(l.s[m]).Less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// trimBefore drops the entries older than boundary (ms) from the front.
func (l *plist) trimBefore(boundary int64, keyOf func(uint32) Key) {
	for l.head < len(l.s) && keyOf(l.s[l.head]).At < boundary {
		l.head++
	}
	if l.head > 64 && l.head*2 > len(l.s) {
		n := copy(l.s, l.s[l.head:])
		l.s = l.s[:n]
		l.head = 0
		if cap(l.s) > 4*n+64 {
			l.s = append(make([]uint32, 0, 2*n+16), l.s...)
		}
	}
}
