package xapi

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine a test starts (connector loops, watchdogs, pingers, fake
// servers) must be gone when the tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, // idle keep-alive connections of the test clients
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"))
}
