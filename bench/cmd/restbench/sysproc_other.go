//go:build !linux

package main

import (
	"syscall"
	"time"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func selfCPU() time.Duration { return 0 }
