package testkit

import (
	"fmt"
	"os"
	"testing"

	"github.com/alertd/alertd/persistence/pgtest"
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
		// protoactor's dead-letter log throttle runs a goroutine of its own
		// for one second after a dead letter; it ends by itself.
		goleak.IgnoreAnyFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
	}
}

// VerifyTestMain runs the package's tests, then the cleanups, closes the
// connection pgtest keeps to the test server, and fails the run if any
// goroutine the tests started is still there (beyond ProcessWide). Every
// package whose tests start goroutines calls it from TestMain.
func VerifyTestMain(m *testing.M, cleanups ...func()) {
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	pgtest.Close()
	if code == 0 {
		if err := goleak.Find(ProcessWide()...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests:\n%v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
