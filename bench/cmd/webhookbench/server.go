package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is the alertd process under test.
type server struct {
	cmd     *exec.Cmd
	base    string
	token   string
	logPath string
	logFile *os.File
	exited  chan struct{}
	http    *http.Client
}

// buildBinary compiles ./cmd/alertd (no -race) into dir.
func buildBinary(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "alertd")
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	mod := strings.TrimSpace(string(gomod))
	if err != nil || mod == "" || mod == os.DevNull {
		return "", errors.New("cannot find the alertd module to build: run from the repository, or pass -bin")
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/alertd")
	cmd.Dir = filepath.Dir(mod)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/alertd: %v\n%s", err, out.String())
	}
	return bin, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startServer runs `alertd serve` with webhooks allowed to reach loopback.
func startServer(bin, tmp, databaseURL string, ready time.Duration) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	var tb [16]byte
	_, _ = rand.Read(tb[:])
	s := &server{base: "http://" + addr, token: "adm_bench_" + hex.EncodeToString(tb[:]),
		logPath: filepath.Join(tmp, "server.log"), exited: make(chan struct{}),
		http: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}}}
	if s.logFile, err = os.Create(s.logPath); err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr, "--data-dir", filepath.Join(tmp, "data"), "--admin-token", s.token,
		"--webhook-allow-cidrs", "127.0.0.0/8"}
	if databaseURL != "" {
		args = append(args, "--database-url", databaseURL)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.logFile, s.logFile
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ALERTD_") && !strings.HasPrefix(kv, "DATABASE_URL=") {
			env = append(env, kv)
		}
	}
	s.cmd.Env = env
	s.cmd.SysProcAttr = sysProcAttr()
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(ready)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("alertd exited before /health answered; see %s", s.logPath)
		default:
		}
		if r, err := s.http.Get(s.base + "/health"); err == nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode == 200 {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("alertd /health not 200 within %v; see %s", ready, s.logPath)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits (SIGKILL after 15 s).
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.logFile.Close()
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
	req, err := http.NewRequest(method, s.base+path, rd)
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
