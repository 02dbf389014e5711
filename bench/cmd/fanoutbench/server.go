//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is the alertd process under test.
type server struct {
	cmd       *exec.Cmd
	addr      string // host:port
	base      string // http://host:port
	pprofAddr string // host:port of the hidden pprof listener; empty when off
	token     string // admin token
	logPath   string
	logFile   *os.File
	exited    chan struct{}
	waitErr   error
}

// buildBinary compiles ./cmd/alertd (no -race) into dir.
func buildBinary(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "alertd")
	env, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(env))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", errors.New("cannot find the alertd module to build: run from the repository, or pass -bin")
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/alertd")
	cmd.Dir = filepath.Dir(gomod)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/alertd: %v\n%s", err, out.String())
	}
	return bin, nil
}

// freePort asks the kernel for an unused loopback port.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr, nil
}

func newToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "adm_bench_" + hex.EncodeToString(b[:])
}

// startServer runs `alertd serve` on a free loopback port with an embedded
// store in tmp and waits for /health 200. The child inherits this process's
// RLIMIT_NOFILE (raised before by raiseNoFile). With pprof set it also
// serves net/http/pprof on another free port (ALERTD_PPROF_ADDR).
func startServer(ctx context.Context, bin, tmp string, pprof bool, ready time.Duration) (*server, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{addr: addr, base: "http://" + addr, token: newToken(),
		logPath: filepath.Join(tmp, "server.log"), exited: make(chan struct{})}
	dataDir := filepath.Join(tmp, "data")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	if s.logFile, err = os.Create(s.logPath); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(bin, "serve", "--addr", addr, "--data-dir", dataDir, "--admin-token", s.token)
	s.cmd.Stdout, s.cmd.Stderr = s.logFile, s.logFile
	s.cmd.Env = filteredEnv("DATABASE_URL", "ALERTD_ADDR", "ALERTD_DATA_DIR", "ALERTD_ADMIN_TOKEN", "ALERTD_DEMO", "ALERTD_PPROF_ADDR")
	if pprof {
		if s.pprofAddr, err = freePort(); err != nil {
			return nil, err
		}
		s.cmd.Env = append(s.cmd.Env, "ALERTD_PPROF_ADDR="+s.pprofAddr)
	}
	// Kill the server if the bench dies without cleaning up.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.logFile.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { s.waitErr = s.cmd.Wait(); close(s.exited) }()

	deadline := time.Now().Add(ready)
	client := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("alertd exited before /health answered (%v):\n%s", s.waitErr, s.logTail(2000))
		case <-ctx.Done():
			s.stop(5 * time.Second)
			return nil, ctx.Err()
		default:
		}
		resp, err := client.Get(s.base + "/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop(5 * time.Second)
			return nil, fmt.Errorf("alertd /health not 200 within %v:\n%s", ready, s.logTail(2000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func filteredEnv(drop ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		keep := true
		for _, d := range drop {
			if strings.HasPrefix(kv, d+"=") {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// stop sends SIGTERM and waits; after grace it kills. It returns the exit
// error of the process (nil for a clean exit 0).
func (s *server) stop(grace time.Duration) error {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(grace):
			// SIGQUIT makes the Go runtime dump every goroutine into the
			// server log: the report points there.
			_ = s.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-s.exited:
			case <-time.After(3 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.exited
			}
			s.waitErr = fmt.Errorf("did not exit within %v of SIGTERM; stopped with SIGQUIT (goroutine dump in server.log)", grace)
		}
	}
	if s.logFile != nil {
		s.logFile.Close()
		s.logFile = nil
	}
	return s.waitErr
}

func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// logTail returns the last n bytes of the server's log.
func (s *server) logTail(n int64) string {
	f, err := os.Open(s.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	_, _ = f.ReadAt(b, off)
	return string(b)
}

// logLevels counts the server log's lines per slog level.
func (s *server) logLevels() map[string]int {
	out := map[string]int{}
	f, err := os.Open(s.logPath)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.Index(line, []byte(`"level":"`))
		if i < 0 {
			out["other"]++
			continue
		}
		rest := line[i+9:]
		if j := bytes.IndexByte(rest, '"'); j >= 0 {
			out[string(rest[:j])]++
		}
	}
	return out
}

// procSample is a process's CPU time and memory at one moment.
type procSample struct {
	at    time.Time
	cpu   time.Duration // utime + stime
	rssKB int64
	hwmKB int64 // peak RSS so far
}

var clkTck = clockTicks()

func clockTicks() int64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return 100
}

// sample reads the server's /proc/<pid>/stat and /proc/<pid>/status; a zero
// sample once it is gone.
func (s *server) sample() procSample {
	ps, err := sampleProc(s.cmd.Process.Pid)
	if err != nil {
		return procSample{at: time.Now()}
	}
	return ps
}

func sampleProc(pid int) (procSample, error) {
	ps := procSample{at: time.Now()}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ps, err
	}
	// The command name (field 2) may hold spaces; fields after ')' are fixed.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ps, errors.New("unexpected /proc/pid/stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 { // f[0] is field 3; utime is field 14, stime 15
		return ps, errors.New("short /proc/pid/stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	ps.cpu = time.Duration(ut+st) * time.Second / time.Duration(clkTck)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ps, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
		switch k {
		case "VmRSS":
			ps.rssKB, _ = strconv.ParseInt(v, 10, 64)
		case "VmHWM":
			ps.hwmKB, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return ps, nil
}

// settle waits until the server's CPU use stays below idleCores for three
// consecutive intervals, or timeout; it reports whether it settled.
func (s *server) settle(ctx context.Context, idleCores float64, interval, timeout time.Duration) bool {
	start := time.Now()
	prev := s.sample()
	quiet := 0
	for time.Since(start) < timeout {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(interval):
		}
		cur := s.sample()
		used := float64(cur.cpu-prev.cpu) / float64(cur.at.Sub(prev.at))
		prev = cur
		if used < idleCores {
			if quiet++; quiet >= 3 {
				return true
			}
		} else {
			quiet = 0
		}
	}
	return false
}

// selfCPU is this process's user plus system CPU time (the load generator's
// own cost, reported beside the server's).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// raiseNoFile raises this process's open-file soft limit to the hard limit
// (the server, started later, inherits it) and returns the new limit.
func raiseNoFile() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	r.Cur = r.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	return r.Cur, nil
}

// loadAvg is /proc/loadavg's first three fields.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
