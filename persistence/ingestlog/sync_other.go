//go:build !linux

package ingestlog

import "os"

// datasync flushes f (fsync; fdatasync is Linux's).
func datasync(f *os.File) error { return f.Sync() }
