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
	cmd     *exec.Cmd
	addr    string // host:port
	base    string // http://host:port
	token   string // admin token
	dataDir string
	logPath string
	logFile *os.File
	exited  chan struct{}
	waitErr error
}

// buildBinary compiles ./cmd/alertd (no -race) into dir.
func buildBinary(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "alertd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/alertd")
	// Build from the module root, wherever the bench was started.
	env, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(env))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", errors.New("cannot find the alertd module to build: run from the repository, or pass -bin")
	}
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

// startServer runs `alertd serve` on a free loopback port and waits for
// /health to answer 200.
func startServer(ctx context.Context, bin, tmp, databaseURL string, ready time.Duration) (*server, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{
		addr:    addr,
		base:    "http://" + addr,
		token:   newToken(),
		dataDir: filepath.Join(tmp, "data"),
		logPath: filepath.Join(tmp, "server.log"),
		exited:  make(chan struct{}),
	}
	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
		return nil, err
	}
	if s.logFile, err = os.Create(s.logPath); err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr, "--data-dir", s.dataDir, "--admin-token", s.token}
	if databaseURL != "" {
		args = append(args, "--database-url", databaseURL)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.logFile, s.logFile
	// Keep the environment from choosing another store or address.
	s.cmd.Env = filteredEnv("DATABASE_URL", "ALERTD_ADDR", "ALERTD_DATA_DIR", "ALERTD_ADMIN_TOKEN", "ALERTD_DEMO")
	s.cmd.SysProcAttr = sysProcAttr()
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
			_ = s.cmd.Process.Kill()
			<-s.exited
			s.waitErr = fmt.Errorf("did not exit within %v of SIGTERM; killed", grace)
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
	off := st.Size() - n
	if off < 0 {
		off = 0
	}
	b := make([]byte, st.Size()-off)
	_, _ = f.ReadAt(b, off)
	return string(b)
}

// logLevels counts the server log's lines per slog level (warnings and
// errors during a run are worth a look).
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

// procSample is the server's CPU time and memory at one moment.
type procSample struct {
	at     time.Time
	cpu    time.Duration // utime + stime
	rssKB  int64
	hwmKB  int64 // peak RSS so far
	thread int64
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

// sample reads /proc/<pid>/stat and /proc/<pid>/status.
func (s *server) sample() (procSample, error) {
	return sampleProc(s.cmd.Process.Pid)
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
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
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
		case "Threads":
			ps.thread, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return ps, nil
}

// mustSample samples the server, or returns a zero sample if it is gone.
func (s *server) mustSample() procSample {
	ps, err := s.sample()
	if err != nil {
		return procSample{at: time.Now()}
	}
	return ps
}

// settle waits until the server's CPU use stays below idleCores (fraction of
// one core) for three consecutive intervals, or timeout. It returns the time
// waited and whether the server settled. Ingest is asynchronous: accepted
// observations still travel through actors and the store writer after the
// HTTP answer, and that work belongs to the ingest cost.
func (s *server) settle(ctx context.Context, idleCores float64, interval, timeout time.Duration) (time.Duration, bool) {
	start := time.Now()
	prev := s.mustSample()
	quiet := 0
	for time.Since(start) < timeout {
		select {
		case <-ctx.Done():
			return time.Since(start), false
		case <-time.After(interval):
		}
		cur := s.mustSample()
		used := float64(cur.cpu-prev.cpu) / float64(cur.at.Sub(prev.at))
		prev = cur
		if used < idleCores {
			quiet++
			if quiet >= 3 {
				// The quiet intervals were idle already: do not count them.
				return time.Since(start) - 3*interval, true
			}
		} else {
			quiet = 0
		}
	}
	return time.Since(start), false
}

// dirSize is the total size of the files below dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}
