//go:build race

package e2e

// raceEnabled: the race detector multiplies memory (shadow memory) and
// slows every goroutine; resource budgets are asserted without it only.
const raceEnabled = true
