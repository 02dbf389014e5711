package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockName is the file in --data-dir that one serving process holds locked
// for its lifetime: two processes on one data dir would both append to the
// ingest log and replay each other's records (and, on the embedded store,
// share its files).
const lockName = "LOCK"

// lockDataDir takes an exclusive lock on <dir>/LOCK and writes the process
// id into it for the message a second process prints. The lock goes with
// the process (the kernel drops it at exit, a crash included); unlock
// releases it earlier.
func lockDataDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data dir lock: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data dir lock %s: %w", path, err)
	}
	if held {
		b, _ := os.ReadFile(path)
		f.Close()
		owner := "another process"
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			owner = fmt.Sprintf("another process (pid %d)", pid)
		}
		return nil, fmt.Errorf("data dir %s is in use by %s: one alertd per data dir", dir, owner)
	}
	// The pid is for the message only; the lock is what counts.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
