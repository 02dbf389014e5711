//go:build linux

// Command floorserver is the fan-out bench's yardstick (issue 16): the least
// a server can do to deliver the bench's posts. It speaks just enough of the
// B2B realtime socket for fanoutbench's clients (upgrade, HELLO, LOGIN,
// READY, HEARTBEAT → HEARTBEAT_ACK, ping → pong) and, for each post ingested,
// frames one EVENT once and writes it with one non-blocking write(2) per
// subscribed socket: no filters, queues, persistence or writer goroutines. A
// write the socket cannot take whole is counted (/health "short_writes") and
// that socket is dropped, never retried.
//
// It takes the flags fanoutbench's server starter passes to alertd (`serve
// --addr --internal-addr --data-dir --admin-token`) plus the workload's
// geometry: the key "floor_<a>" subscribes account a's handles, fb_h<i> for
// i = (a*targets + j) mod handles, j < targets, as fanoutbench lays them out.
//
//	floorserver serve --addr 127.0.0.1:9000 --handles 1000 --targets 100
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // on --internal-addr only (http.DefaultServeMux)
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: floorserver serve [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "public listener: /v1/dt/realtime/ws, /ingest/v1/observations, /health")
	internal := fs.String("internal-addr", "", "listener for /debug/pprof/; empty: none")
	token := fs.String("admin-token", "", "bearer token of /ingest/v1/observations; empty: any")
	fs.String("data-dir", "", "ignored (nothing is stored)")
	handles := fs.Int("handles", 1000, "handles fb_h00000 ... of the workload")
	targets := fs.Int("targets", 100, "handles per account (key floor_<a>)")
	pad := fs.Int("event-bytes", 0, "pad each EVENT payload to at least this many bytes (alertd's event for the same post is larger than the observation)")
	_ = fs.Parse(os.Args[2:])
	if *handles < 1 || *targets < 1 || *targets > *handles {
		fmt.Fprintln(os.Stderr, "floorserver: need 1 <= --targets <= --handles")
		os.Exit(2)
	}

	f, err := newFloor(*handles, *targets, *pad, *token)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorserver:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorserver:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", f.health)
	mux.HandleFunc("/ingest/v1/observations", f.ingest)
	mux.HandleFunc("/v1/dt/realtime/ws", f.upgrade)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go f.readLoop()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "floorserver:", err)
			os.Exit(1)
		}
	}()
	var isrv *http.Server
	if *internal != "" {
		isrv = &http.Server{Addr: *internal, Handler: http.DefaultServeMux}
		go func() { _ = isrv.ListenAndServe() }()
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	<-ctx.Done()
	stop()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if isrv != nil {
		_ = isrv.Shutdown(sctx)
	}
	f.closeAll()
}
