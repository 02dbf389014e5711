// Package uring is a small io_uring binding for one job: submitting many
// sockets' sends with one io_uring_enter(2) (issue 16, the WebSocket
// writers' batched send path in edge/ws). It is Linux only (kernel 5.19 or
// later, for IORING_SETUP_SUBMIT_ALL and IORING_SETUP_COOP_TASKRUN); New
// fails elsewhere, and the caller falls back to write(2).
//
// Why hand-written: the Go io_uring libraries (pawelgaczynski/giouring,
// iceber/iouring-go, godzie44/go-uring) were not obtainable from the module
// proxy here, and the job needs four calls: set up and map the rings, queue
// a send, submit and wait, read completions. The completion reader
// (cqRing.reap) is the one place that trusts memory the kernel writes; it
// bounds every index by the ring's mask and is fuzzed (FuzzReap).
//
// A Ring is not safe for concurrent use: one goroutine (a writer) owns it.
// The memory a queued send points at must stay alive and unchanged until its
// completion is reaped; Submit waits for every completion of the sends it
// submits, so a caller that reaps after each Submit can reuse its buffers.
package uring
