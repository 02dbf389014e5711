package testkit

import (
	"testing"

	"go.uber.org/goleak"
)

// ProcessWide are goroutines that live as long as the process by design and
// are no test's leak.
func ProcessWide() []goleak.Option {
	return []goleak.Option{
		// fasthttp refreshes its cached Date header once a second, from the
		// first server on, for the rest of the process.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		// A fasthttp server's idle-worker cleaner sees Shutdown only after
		// its current sleep (MaxIdleWorkerDuration, 10 s). A server never
		// shut down still shows: its Serve goroutine stays in Accept.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
	}
}

// VerifyTestMain runs the package's tests, then fails the run if any
// goroutine it started is still there (beyond ProcessWide and extra).
func VerifyTestMain(m *testing.M, extra ...goleak.Option) {
	goleak.VerifyTestMain(m, append(ProcessWide(), extra...)...)
}
