package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// runHealthcheck asks the local server's GET /health and succeeds only on
// 200: the container image's HEALTHCHECK, which has no shell or curl. The
// address is --addr, else what `alertd serve` would listen on (flags aside:
// ALERTD_ADDR, the ALERTD_CONFIG file, the default), with an unspecified
// host (0.0.0.0, ::) asked on loopback.
func runHealthcheck(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	addr := fs.String("addr", "", "host:port of the server (default: where alertd serve listens)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *addr == "" {
		s, err := parseServeFlags(nil, os.LookupEnv, os.ReadFile)
		if err != nil {
			return err
		}
		*addr = s.cfg.Addr
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("--addr %q is not host:port", *addr)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/health"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return fmt.Errorf("%s: no answer within %v", url, *timeout)
		}
		return fmt.Errorf("%s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d: %s", url, resp.StatusCode, body)
	}
	fmt.Fprintf(stdout, "%s", body)
	return nil
}
