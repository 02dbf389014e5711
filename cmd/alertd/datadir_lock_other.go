//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// tryLock: no flock here; a second process is not refused.
func tryLock(*os.File) (held bool, err error) { return false, nil }
