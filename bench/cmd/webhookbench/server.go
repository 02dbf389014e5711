package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// server is the alertd process under test, with the client the bench talks
// to it through.
type server struct {
	*alertdproc.Server
	http *http.Client
}

// startServer runs `alertd serve` with webhooks allowed to reach loopback
// (and with --internal-addr, for pprof, when internal is set). Stop sends
// SIGTERM and waits (SIGKILL after 15 s).
func startServer(bin, tmp, databaseURL string, ready time.Duration, internal bool) (*server, error) {
	s := &server{http: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}}}
	var err error
	s.Server, err = alertdproc.Start(context.Background(), alertdproc.Options{
		Bin:          bin,
		Dir:          tmp,
		DatabaseURL:  databaseURL,
		ExtraArgs:    []string{"--webhook-allow-cidrs", "127.0.0.0/8"},
		DropEnv:      []string{"ALERTD_", "DATABASE_URL="},
		Internal:     internal,
		SysProcAttr:  alertdproc.KillOnParentDeath(),
		Ready:        ready,
		Grace:        15 * time.Second,
		TokenBytes:   16,
		HealthClient: s.http,
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// call sends a JSON request and decodes the envelope's data into out.
func (s *server) call(method, path, bearer string, body any, want int, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.Base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	if strings.HasPrefix(path, "/ingest/") {
		req.Header.Set("Content-Type", "application/x-ndjson")
	}
	r, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	if r.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, r.StatusCode, raw)
	}
	if out == nil {
		return nil
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, out)
}

// cpuProfile writes a CPU profile of the server, taken over d, to file.
func (s *server) cpuProfile(file string, d time.Duration) error {
	if s.InternalAddr == "" {
		return fmt.Errorf("no --internal-addr")
	}
	c := &http.Client{Timeout: d + 30*time.Second}
	r, err := c.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", s.InternalAddr, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		return fmt.Errorf("pprof: %s", r.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
