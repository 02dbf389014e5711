package main

import "syscall"

// childSysProcAttr makes the kernel kill a server under test if the test
// binary dies before it can stop it.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
