// Package bench holds alertd's load generators and benchmarks. Nothing here
// asserts a number: whole scenarios (bench/cmd/restbench) write markdown
// reports under bench/results, and micro_test.go holds `go test -bench`
// benchmarks of hot functions of other packages. See bench/README.md.
package bench
