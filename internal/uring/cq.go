package uring

import (
	"errors"
	"sync/atomic"
	"unsafe"
)

// CQE is one completion: the user data of its submission, the result (bytes
// sent, or a negated errno) and the kernel's flags.
type CQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

// cqeSize is struct io_uring_cqe without IORING_SETUP_CQE32.
const cqeSize = 16

// cqRing is the completion ring: the kernel writes entries and the tail,
// this side reads entries and advances the head.
type cqRing struct {
	head, tail *uint32
	mask       uint32
	cqes       []CQE
}

var errBadRing = errors.New("uring: completion ring does not match its mask")

// newCQRing checks what the kernel reported (a power-of-two ring whose mask
// covers exactly its entries) before anything indexes with it.
func newCQRing(head, tail *uint32, mask uint32, cqes []CQE) (cqRing, error) {
	n := uint64(mask) + 1
	if n&(n-1) != 0 || uint64(len(cqes)) != n {
		return cqRing{}, errBadRing
	}
	return cqRing{head: head, tail: tail, mask: mask, cqes: cqes}, nil
}

// reap appends the completions between head and tail to dst, up to its
// capacity, and advances the head past them. The tail is the kernel's:
// read with acquire order, and never trusted to be within one ring's
// length of the head.
func (r *cqRing) reap(dst []CQE) []CQE {
	head := atomic.LoadUint32(r.head)
	tail := atomic.LoadUint32(r.tail)
	n := tail - head
	n = min(n, uint32(len(r.cqes)), uint32(cap(dst)-len(dst)))
	for i := range n {
		dst = append(dst, r.cqes[(head+i)&r.mask])
	}
	atomic.StoreUint32(r.head, head+n)
	return dst
}

// ready is how many completions wait (at most the ring's size).
func (r *cqRing) ready() uint32 {
	return min(atomic.LoadUint32(r.tail)-atomic.LoadUint32(r.head), uint32(len(r.cqes)))
}

var _ [cqeSize]byte = [unsafe.Sizeof(CQE{})]byte{}
