//go:build !linux

package alertdproc

import (
	"syscall"
	"time"
)

// KillOnParentDeath is nil off Linux (no Pdeathsig).
func KillOnParentDeath() *syscall.SysProcAttr { return nil }

// SelfCPU is 0 off Linux.
func SelfCPU() time.Duration { return 0 }
