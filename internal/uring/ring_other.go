//go:build !linux

package uring

import (
	"errors"
	"unsafe"
)

// Ring is io_uring, which exists on Linux only.
type Ring struct{}

// CQEFlagMore and CQEFlagNotif: see the Linux build.
const (
	CQEFlagMore  = 1 << 1
	CQEFlagNotif = 1 << 3
)

// New fails: io_uring is Linux only.
func New(entries uint32) (*Ring, error) { return nil, errors.New("uring: io_uring is Linux only") }

func (r *Ring) Close() error                                                      { return nil }
func (r *Ring) Entries() int                                                      { return 0 }
func (r *Ring) Send(fd int, p unsafe.Pointer, n int, f uint32, u uint64) bool     { return false }
func (r *Ring) SendZC(fd int, p unsafe.Pointer, n int, f uint32, u uint64) bool   { return false }
func (r *Ring) SendFixed(i int, p unsafe.Pointer, n int, f uint32, u uint64) bool { return false }
func (r *Ring) RegisterFiles(fds []int32) error                                   { return errors.New("uring: io_uring is Linux only") }
func (r *Ring) UnregisterFiles() error                                            { return nil }
func (r *Ring) ProbeSend() error                                                  { return errors.New("uring: io_uring is Linux only") }
func (r *Ring) Queued() int                                                       { return 0 }
func (r *Ring) Submit(wait int) (int, error)                                      { return 0, errors.New("uring: io_uring is Linux only") }
func (r *Ring) Wait(n int) error                                                  { return nil }
func (r *Ring) Reap(dst []CQE) []CQE                                              { return dst }
