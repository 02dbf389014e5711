//go:build !race

package main

// raceEnabled says the tests run with -race, so the binary under test is
// built with -race too.
const raceEnabled = false
