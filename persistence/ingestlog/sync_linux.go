package ingestlog

import (
	"os"
	"syscall"
)

// datasync flushes f's data. Segments are preallocated and zero-filled, so
// an append changes no metadata and fdatasync needs no journal commit: on
// ext4 an fsync that extends a file waits for the journal, and with it for
// every other file's pending data on the disk.
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
