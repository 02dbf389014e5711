//go:build !unix

package main

import "time"

// cpuTime is not measured outside unix.
func cpuTime() time.Duration { return 0 }
