package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// Internal is the listener of --internal-addr: /metrics without
// authentication and net/http/pprof under /debug/pprof/, for a network the
// operator trusts (loopback, a cluster's private network). It owns one
// goroutine, which Close stops.
type Internal struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// ServeInternal binds addr and serves m and pprof on it.
func ServeInternal(addr string, m *Metrics, log *slog.Logger) (*Internal, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	in := &Internal{ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}}
	go func() {
		defer close(in.done)
		if err := in.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("internal listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	log.Info("internal listener: /metrics and /debug/pprof/", "addr", ln.Addr().String())
	return in, nil
}

// Addr is the bound address.
func (in *Internal) Addr() net.Addr { return in.ln.Addr() }

// Close stops serving (a profile being taken is cut short) and waits for
// the goroutine.
func (in *Internal) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := in.srv.Shutdown(ctx); err != nil {
		_ = in.srv.Close()
	}
	<-in.done
}
