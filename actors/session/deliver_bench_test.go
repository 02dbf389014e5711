package session

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/alertd/alertd/actors/delivery"
)

// nopConn is a socket that takes every frame and keeps none.
type nopConn struct{}

func (nopConn) Send([]byte) bool                      { return true }
func (nopConn) SendEvent([]byte, int64) bool          { return true }
func (nopConn) Close(int, string)                     {}
func (nopConn) CloseNow()                             {}
func (nopConn) AfterFunc(time.Duration, func()) Timer { return nopTimer{} }
func (nopConn) RemoteIP() netip.Addr                  { return netip.MustParseAddr("192.0.2.9") }

type nopTimer struct{}

func (nopTimer) Stop() bool               { return false }
func (nopTimer) Reset(time.Duration) bool { return false }

// BenchmarkDeliverRealtime1000 is one post published to a handle watched by
// 1,000 logged-in realtime sessions: the hub's copy of the set plus each
// session's checks (state, kinds, filter) and Send. Encoding is done once,
// before the timer.
func BenchmarkDeliverRealtime1000(b *testing.B) {
	d := newTestDeps(b)
	d.Limits = NewConnLimit()
	var sessions []*Realtime
	for i := range 1000 {
		key, _ := d.issue(b, "enterprise", nil, "alpha")
		_ = i
		s := NewRealtime(d.Deps)
		open(s, nopConn{})
		s.Message(true, loginFrame(key))
		sessions = append(sessions, s)
	}
	e := postEvent("alpha", "1")
	e.Encode()
	if n := d.Hub.Publish(delivery.HandleTopic("alpha"), e); n != 1000 {
		b.Fatalf("published to %d", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		d.Hub.Publish(delivery.HandleTopic("alpha"), e)
	}
	b.StopTimer()
	for _, s := range sessions {
		s.Closed(ReasonClientClosed)
	}
}

// TestRealtimeSessionSize prints the size of an idle realtime session
// struct (it must not grow: tens of thousands sit idle).
func TestRealtimeSessionSize(t *testing.T) {
	t.Log(fmt.Sprintf("unsafe.Sizeof(Realtime{}) = %d bytes", unsafe.Sizeof(Realtime{})))
}

// BenchmarkIdleRealtimeMemory reports the heap an idle, logged-in realtime
// session holds (with its hub subscriptions and slot; the transport's own
// connection is not counted: see edge/ws BenchmarkIdleConnMemory).
func BenchmarkIdleRealtimeMemory(b *testing.B) {
	d := newTestDeps(b)
	const n = 2000
	keys := make([]string, n)
	for i := range keys {
		keys[i], _ = d.issue(b, "pro", nil, "alpha", "beta", "gamma")
	}
	b.ResetTimer()
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		sessions := make([]*Realtime, n)
		for i := range sessions {
			s := NewRealtime(d.Deps)
			open(s, nopConn{})
			s.Message(true, loginFrame(keys[i]))
			sessions[i] = s
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/session")
		for _, s := range sessions {
			s.Closed(ReasonClientClosed)
		}
	}
}

// BenchmarkIdleRealtimeMemoryShared is BenchmarkIdleRealtimeMemory in the
// fan-out bench's idle shape: accounts of 100 targets among 1,000 handles,
// three sockets each (they share the account's subscription).
func BenchmarkIdleRealtimeMemoryShared(b *testing.B) {
	d := newTestDeps(b)
	const accounts, perAccount, targets = 1000, 3, 100
	handles := make([]string, 1000)
	for i := range handles {
		handles[i] = fmt.Sprintf("fb_h%05d", i)
	}
	keys := make([]string, accounts)
	for a := range keys {
		hs := make([]string, targets)
		for j := range hs {
			hs[j] = handles[(a*targets+j)%len(handles)]
		}
		keys[a], _ = d.issue(b, "enterprise", nil, hs...)
	}
	const n = accounts * perAccount
	b.ResetTimer()
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		sessions := make([]*Realtime, 0, n)
		for i := range n {
			s := NewRealtime(d.Deps)
			open(s, nopConn{})
			s.Message(true, loginFrame(keys[i%accounts]))
			sessions = append(sessions, s)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/session")
		for _, s := range sessions {
			s.Closed(ReasonClientClosed)
		}
	}
}
