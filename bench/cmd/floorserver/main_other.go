//go:build !linux

// Command floorserver needs Linux (epoll, raw descriptors); see main.go.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "floorserver: Linux only")
	os.Exit(2)
}
