//go:build !linux

// Command fanoutbench needs Linux (epoll, /proc); see main.go.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "fanoutbench: Linux only (epoll client, /proc sampling)")
	os.Exit(2)
}
