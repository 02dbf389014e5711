package testkit

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
)

// FreePort returns a loopback port that was free a moment ago (for a
// process that must be told its address; in process, listen on port 0).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

var ipSeq atomic.Int32

// FreshIP is a loopback address no other caller in this process got: failed
// logins block their source IP, so a test that fails logins dials from its
// own (Linux routes all of 127.0.0.0/8 to lo).
func FreshIP() string {
	n := ipSeq.Add(1)
	return fmt.Sprintf("127.77.%d.%d", n/200, n%200+2)
}

// RandomHex returns n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
