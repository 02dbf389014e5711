//go:build linux

package uring

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel ABI (include/uapi/linux/io_uring.h) this binding uses.
const (
	opSend   = 26 // IORING_OP_SEND
	opSendZC = 47 // IORING_OP_SEND_ZC (6.0)

	setupSubmitAll   = 1 << 7 // IORING_SETUP_SUBMIT_ALL: a failing SQE does not stop the batch
	setupCoopTaskrun = 1 << 8 // IORING_SETUP_COOP_TASKRUN: no IPI to run completion work

	featSingleMmap = 1 << 0 // IORING_FEAT_SINGLE_MMAP

	enterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS

	sqeFixedFile    = 1 << 0 // IOSQE_FIXED_FILE: the SQE's fd is an index into the registered files
	registerFiles   = 2      // IORING_REGISTER_FILES
	unregisterFiles = 3      // IORING_UNREGISTER_FILES

	offSQRing = 0
	offSQEs   = 0x10000000

	// CQEFlagMore is IORING_CQE_F_MORE: another completion of the same
	// submission follows (SEND_ZC's notification).
	CQEFlagMore = 1 << 1
	// CQEFlagNotif is IORING_CQE_F_NOTIF: SEND_ZC's buffer is free again.
	CQEFlagNotif = 1 << 3
)

type sqOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqOffsets
	cqOff                                                                  cqOffsets
}

// sqe is struct io_uring_sqe (64 bytes).
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	msgFlags    uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFDIn  int32
	addr3       uint64
	_           uint64
}

var (
	_ [120]byte = [unsafe.Sizeof(params{})]byte{}
	_ [64]byte  = [unsafe.Sizeof(sqe{})]byte{}
)

// Ring is one io_uring instance with its mapped rings.
type Ring struct {
	fd      int
	ringMem []byte
	sqeMem  []byte

	sqHead, sqTail *uint32
	sqMask         uint32
	sqes           []sqe
	tail           uint32 // next free slot (ours; published by Submit)

	cq cqRing
}

// New sets up a ring of at least entries submissions. It fails where
// io_uring is missing, disabled (kernel.io_uring_disabled, seccomp) or older
// than 5.19.
func New(entries uint32) (*Ring, error) {
	var p params
	p.flags = setupSubmitAll | setupCoopTaskrun
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", e)
	}
	r := &Ring{fd: int(fd)}
	if err := r.mmap(&p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Ring) mmap(p *params) error {
	if p.features&featSingleMmap == 0 {
		return fmt.Errorf("io_uring: kernel without IORING_FEAT_SINGLE_MMAP (older than 5.4)")
	}
	size := max(uintptr(p.sqOff.array)+uintptr(p.sqEntries)*4, uintptr(p.cqOff.cqes)+uintptr(p.cqEntries)*cqeSize)
	mem, err := unix.Mmap(r.fd, offSQRing, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("io_uring mmap rings: %w", err)
	}
	r.ringMem = mem
	sqes, err := unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("io_uring mmap sqes: %w", err)
	}
	r.sqeMem = sqes
	at := func(off uint32) unsafe.Pointer { return unsafe.Pointer(&mem[off]) }
	r.sqHead = (*uint32)(at(p.sqOff.head))
	r.sqTail = (*uint32)(at(p.sqOff.tail))
	r.sqMask = *(*uint32)(at(p.sqOff.ringMask))
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqes[0])), p.sqEntries)
	if r.sqMask+1 != p.sqEntries {
		return fmt.Errorf("io_uring: submission ring mask %d for %d entries", r.sqMask, p.sqEntries)
	}
	// Slot i of the submission array always names SQE i.
	array := unsafe.Slice((*uint32)(at(p.sqOff.array)), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.tail = *r.sqTail
	cqMask := *(*uint32)(at(p.cqOff.ringMask))
	cqes := unsafe.Slice((*CQE)(at(p.cqOff.cqes)), p.cqEntries)
	r.cq, err = newCQRing((*uint32)(at(p.cqOff.head)), (*uint32)(at(p.cqOff.tail)), cqMask, cqes)
	return err
}

// Close unmaps the rings and closes the ring's descriptor. No send may be
// in flight.
func (r *Ring) Close() error {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
		r.sqeMem = nil
	}
	if r.ringMem != nil {
		unix.Munmap(r.ringMem)
		r.ringMem = nil
	}
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
	return nil
}

// Entries is how many sends can be queued before a Submit.
func (r *Ring) Entries() int { return len(r.sqes) }

// Send queues a send(2) of n bytes at p on fd with flags (MSG_*); userData
// comes back in its completion. It reports false when the submission ring
// is full. p must stay valid until the completion is reaped.
func (r *Ring) Send(fd int, p unsafe.Pointer, n int, flags uint32, userData uint64) bool {
	return r.queue(opSend, fd, p, n, flags, userData)
}

// SendZC is Send with IORING_OP_SEND_ZC (kernel 6.0): the pages are sent
// without a copy, and a second completion (CQEFlagNotif) says when p may be
// reused. Its first completion carries CQEFlagMore when that second one
// follows.
func (r *Ring) SendZC(fd int, p unsafe.Pointer, n int, flags uint32, userData uint64) bool {
	return r.queue(opSendZC, fd, p, n, flags, userData)
}

// SendFixed is Send on the registered file at index i (RegisterFiles):
// the kernel skips looking the descriptor up and taking a reference to
// its file for each send.
func (r *Ring) SendFixed(i int, p unsafe.Pointer, n int, flags uint32, userData uint64) bool {
	if !r.queue(opSend, i, p, n, flags, userData) {
		return false
	}
	r.sqes[(r.tail-1)&r.sqMask].flags = sqeFixedFile
	return true
}

// RegisterFiles registers fds as the ring's fixed files (index i is
// fds[i]). The ring holds a reference to each file until UnregisterFiles
// or Close: closing a descriptor does not close its socket meanwhile.
func (r *Ring) RegisterFiles(fds []int32) error {
	if len(fds) == 0 {
		return nil
	}
	_, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerFiles, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0)
	if e != 0 {
		return fmt.Errorf("io_uring_register files: %w", e)
	}
	return nil
}

// UnregisterFiles drops the registered files and their references.
func (r *Ring) UnregisterFiles() error {
	_, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), unregisterFiles, 0, 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("io_uring_unregister files: %w", e)
	}
	return nil
}

func (r *Ring) queue(op uint8, fd int, p unsafe.Pointer, n int, flags uint32, userData uint64) bool {
	if r.tail-atomic.LoadUint32(r.sqHead) >= uint32(len(r.sqes)) {
		return false
	}
	s := &r.sqes[r.tail&r.sqMask]
	*s = sqe{opcode: op, fd: int32(fd), addr: uint64(uintptr(p)), len: uint32(n), msgFlags: flags, userData: userData}
	r.tail++
	return true
}

// Queued is how many sends wait for Submit.
func (r *Ring) Queued() int { return int(r.tail - atomic.LoadUint32(r.sqTail)) }

// Submit hands every queued send to the kernel with one io_uring_enter and
// waits until wait completions are ready (fewer when interrupted: call Wait
// for the rest). Sends on non-blocking sockets complete inside the call.
// It returns how many sends the kernel took; those not taken (an error
// before any was taken) are dropped from the ring, so the caller may write
// them another way.
func (r *Ring) Submit(wait int) (int, error) {
	head := atomic.LoadUint32(r.sqHead)
	n := r.tail - head
	if n == 0 && wait == 0 {
		return 0, nil
	}
	atomic.StoreUint32(r.sqTail, r.tail)
	var flags uintptr
	if wait > 0 {
		flags = enterGetEvents
	}
	for {
		_, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(n), uintptr(wait), flags, 0, 0)
		if e == unix.EINTR && atomic.LoadUint32(r.sqHead) == head {
			continue // interrupted before taking any
		}
		taken := atomic.LoadUint32(r.sqHead) - head
		if taken < n {
			// Not taken (the kernel reads the tail only inside enter): drop them.
			r.tail = head + taken
			atomic.StoreUint32(r.sqTail, r.tail)
		}
		if e != 0 && e != unix.EINTR {
			return int(taken), fmt.Errorf("io_uring_enter: %w", e)
		}
		return int(taken), nil
	}
}

// Wait blocks until n completions are ready (or a signal interrupts it).
func (r *Ring) Wait(n int) error {
	if n <= 0 || int(r.cq.ready()) >= n {
		return nil
	}
	_, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 0, uintptr(n), enterGetEvents, 0, 0)
	if e != 0 && e != unix.EINTR {
		return fmt.Errorf("io_uring_enter: %w", e)
	}
	return nil
}

// ProbeSend sends one byte through the ring over a socket pair of its own
// and reads it back. A ring can be set up where its sends still fail (a
// sandbox that implements io_uring_setup but not IORING_OP_SEND, a seccomp
// profile that allows setup and refuses io_uring_enter): a caller that
// probes at start falls back before any connection depends on the ring.
// No send may be queued.
func (r *Ring) ProbeSend() error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("io_uring probe: %w", err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	b := [1]byte{'p'}
	if !r.Send(fds[0], unsafe.Pointer(&b[0]), 1, unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0) {
		return fmt.Errorf("io_uring probe: submission ring full")
	}
	if _, err := r.Submit(1); err != nil {
		return fmt.Errorf("io_uring probe: %w", err)
	}
	if err := r.Wait(1); err != nil {
		return fmt.Errorf("io_uring probe: %w", err)
	}
	var c [1]CQE
	got := r.Reap(c[:0])
	switch {
	case len(got) != 1:
		return fmt.Errorf("io_uring probe: no completion")
	case got[0].Res < 0:
		return fmt.Errorf("io_uring probe: IORING_OP_SEND: %w", unix.Errno(-got[0].Res))
	case got[0].Res != 1:
		return fmt.Errorf("io_uring probe: IORING_OP_SEND sent %d bytes of 1", got[0].Res)
	}
	var in [2]byte
	if n, err := unix.Read(fds[1], in[:]); n != 1 || in[0] != 'p' {
		return fmt.Errorf("io_uring probe: peer read %d bytes: %v", n, err)
	}
	return nil
}

// Reap appends ready completions to dst, up to its capacity.
func (r *Ring) Reap(dst []CQE) []CQE { return r.cq.reap(dst) }
