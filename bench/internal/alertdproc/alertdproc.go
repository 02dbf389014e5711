// Package alertdproc builds and runs the alertd binary for the load
// generators under bench/cmd: it starts `alertd serve` on a free loopback
// port with a temporary data directory and a generated admin token, waits
// for /health, samples the server's CPU time and memory from /proc and stops
// it with SIGTERM.
package alertdproc

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

// BuildBinary compiles ./cmd/alertd (no -race) of the enclosing module into
// dir and returns the binary's path.
func BuildBinary(ctx context.Context, dir string) (string, error) {
	return BuildPackage(ctx, dir, "./cmd/alertd", "alertd")
}

// BuildPackage compiles the module's main package pkg ("./bench/cmd/...")
// into dir/name and returns the binary's path.
func BuildPackage(ctx context.Context, dir, pkg, name string) (string, error) {
	bin := filepath.Join(dir, name)
	// Build from the module root, wherever the bench was started.
	env, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(env))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", errors.New("cannot find the alertd module to build: run from the repository, or pass -bin")
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Dir(gomod)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out.String())
	}
	return bin, nil
}

// FreePort asks the kernel for an unused loopback port (host:port).
func FreePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr, nil
}

// Options says how to start the server; what differs between the benches.
type Options struct {
	Bin string // the alertd binary
	Dir string // temp dir: the data dir is Dir/data, the log Dir/server.log

	DatabaseURL string   // --database-url when set (else the embedded store)
	ExtraArgs   []string // more `alertd serve` flags

	// DropEnv lists prefixes of environment entries ("ALERTD_ADDR=", or
	// "ALERTD_" for all) kept from the child, so that the environment does
	// not choose another store or address. ALERTD_CONFIG and
	// ALERTD_INTERNAL_ADDR are always dropped.
	DropEnv []string
	// Internal starts the server with --internal-addr on a free loopback
	// port (Server.InternalAddr): /metrics and /debug/pprof/ there.
	Internal bool
	ExtraEnv []string // appended to the child's environment

	SysProcAttr *syscall.SysProcAttr // e.g. KillOnParentDeath()

	Ready time.Duration // how long to wait for /health 200
	Grace time.Duration // Stop: time between SIGTERM and kill (default 15 s)
	// QuitBeforeKill makes Stop send SIGQUIT (a goroutine dump into the
	// server log) once Grace is over, and kill only 3 s later.
	QuitBeforeKill bool

	TokenBytes   int          // random bytes in the admin token (default 24)
	HealthClient *http.Client // polls /health (default: 1 s timeout)
}

// Server is a running alertd process.
type Server struct {
	Cmd          *exec.Cmd
	Addr         string // host:port
	Base         string // http://host:port
	InternalAddr string // host:port of --internal-addr (/metrics, /debug/pprof/); empty when off
	Token        string // admin token
	DataDir      string
	LogPath      string

	opts    Options
	logFile *os.File
	exited  chan struct{}
	waitErr error
}

func newToken(n int) string {
	if n <= 0 {
		n = 24
	}
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return "adm_bench_" + hex.EncodeToString(b)
}

// Start runs `alertd serve` on a free loopback port and waits for /health
// to answer 200.
func Start(ctx context.Context, o Options) (*Server, error) {
	addr, err := FreePort()
	if err != nil {
		return nil, err
	}
	if o.Grace <= 0 {
		o.Grace = 15 * time.Second
	}
	s := &Server{
		Addr:    addr,
		Base:    "http://" + addr,
		Token:   newToken(o.TokenBytes),
		DataDir: filepath.Join(o.Dir, "data"),
		LogPath: filepath.Join(o.Dir, "server.log"),
		opts:    o,
		exited:  make(chan struct{}),
	}
	if err := os.MkdirAll(s.DataDir, 0o700); err != nil {
		return nil, err
	}
	if s.logFile, err = os.Create(s.LogPath); err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr, "--data-dir", s.DataDir, "--admin-token", s.Token}
	if o.DatabaseURL != "" {
		args = append(args, "--database-url", o.DatabaseURL)
	}
	if o.Internal {
		if s.InternalAddr, err = FreePort(); err != nil {
			s.logFile.Close()
			return nil, err
		}
		if hasFlag(o.Bin, "internal-addr") {
			args = append(args, "--internal-addr", s.InternalAddr)
		} else { // a binary from before --internal-addr (a -bin of an older commit)
			o.ExtraEnv = append(o.ExtraEnv, "ALERTD_PPROF_ADDR="+s.InternalAddr)
		}
	}
	args = append(args, o.ExtraArgs...)
	s.Cmd = exec.Command(o.Bin, args...)
	s.Cmd.Stdout, s.Cmd.Stderr = s.logFile, s.logFile
	s.Cmd.Env = filteredEnv(o.DropEnv)
	s.Cmd.Env = append(s.Cmd.Env, o.ExtraEnv...)
	s.Cmd.SysProcAttr = o.SysProcAttr
	if err := s.Cmd.Start(); err != nil {
		s.logFile.Close()
		return nil, fmt.Errorf("start %s: %w", o.Bin, err)
	}
	go func() { s.waitErr = s.Cmd.Wait(); close(s.exited) }()

	client := o.HealthClient
	if client == nil {
		client = &http.Client{Timeout: time.Second}
	}
	deadline := time.Now().Add(o.Ready)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("alertd exited before /health answered (%v):\n%s", s.waitErr, s.LogTail(2000))
		case <-ctx.Done():
			s.stop(5 * time.Second)
			return nil, ctx.Err()
		default:
		}
		resp, err := client.Get(s.Base + "/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop(5 * time.Second)
			return nil, fmt.Errorf("alertd /health not 200 within %v:\n%s", o.Ready, s.LogTail(2000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hasFlag reports whether `bin serve -h` lists --name.
func hasFlag(bin, name string) bool {
	out, _ := exec.Command(bin, "serve", "-h").CombinedOutput()
	return strings.Contains(string(out), "-"+name)
}

func filteredEnv(drop []string) []string {
	drop = append(drop, "ALERTD_CONFIG=", "ALERTD_INTERNAL_ADDR=")
	var out []string
	for _, kv := range os.Environ() {
		keep := true
		for _, d := range drop {
			if strings.HasPrefix(kv, d) {
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

// Stop sends SIGTERM and waits; after the grace period it kills (with
// QuitBeforeKill: SIGQUIT first). It returns the exit error of the process
// (nil for a clean exit 0). Stop may be called more than once.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	return s.stop(s.opts.Grace)
}

func (s *Server) stop(grace time.Duration) error {
	if s == nil || s.Cmd == nil || s.Cmd.Process == nil {
		return nil
	}
	select {
	case <-s.exited:
	default:
		_ = s.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(grace):
			if s.opts.QuitBeforeKill {
				// SIGQUIT makes the Go runtime dump every goroutine into
				// the server log.
				_ = s.Cmd.Process.Signal(syscall.SIGQUIT)
				select {
				case <-s.exited:
				case <-time.After(3 * time.Second):
					_ = s.Cmd.Process.Kill()
					<-s.exited
				}
				s.waitErr = fmt.Errorf("did not exit within %v of SIGTERM; stopped with SIGQUIT (goroutine dump in server.log)", grace)
			} else {
				_ = s.Cmd.Process.Kill()
				<-s.exited
				s.waitErr = fmt.Errorf("did not exit within %v of SIGTERM; killed", grace)
			}
		}
	}
	if s.logFile != nil {
		s.logFile.Close()
		s.logFile = nil
	}
	return s.waitErr
}

// Alive reports whether the process is still running.
func (s *Server) Alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// LogTail returns the last n bytes of the server's log.
func (s *Server) LogTail(n int64) string {
	f, err := os.Open(s.LogPath)
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

// LogLevels counts the server log's lines per slog level (warnings and
// errors during a run are worth a look); lines without one count as "other".
func (s *Server) LogLevels() map[string]int {
	out := map[string]int{}
	f, err := os.Open(s.LogPath)
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

// Sample is a process's CPU time and memory at one moment.
type Sample struct {
	At      time.Time
	CPU     time.Duration // utime + stime
	RSSKB   int64
	HWMKB   int64 // peak RSS so far
	Threads int64
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

// Sample reads the server's /proc/<pid>/stat and /proc/<pid>/status; a zero
// sample (only At set) once it is gone.
func (s *Server) Sample() Sample {
	ps, err := SampleProc(s.Cmd.Process.Pid)
	if err != nil {
		return Sample{At: time.Now()}
	}
	return ps
}

// SampleProc reads /proc/<pid>/stat and /proc/<pid>/status.
func SampleProc(pid int) (Sample, error) {
	ps := Sample{At: time.Now()}
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
	if len(f) < 13 { // f[0] is field 3 (state); utime is field 14, stime 15
		return ps, errors.New("short /proc/pid/stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	ps.CPU = time.Duration(ut+st) * time.Second / time.Duration(clkTck)
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
			ps.RSSKB, _ = strconv.ParseInt(v, 10, 64)
		case "VmHWM":
			ps.HWMKB, _ = strconv.ParseInt(v, 10, 64)
		case "Threads":
			ps.Threads, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return ps, nil
}

// Settle waits until the server's CPU use stays below idleCores (fraction of
// one core) for three consecutive intervals, or timeout. It returns the time
// waited, not counting the three quiet intervals, and whether the server
// settled.
func (s *Server) Settle(ctx context.Context, idleCores float64, interval, timeout time.Duration) (time.Duration, bool) {
	start := time.Now()
	prev := s.Sample()
	quiet := 0
	for time.Since(start) < timeout {
		select {
		case <-ctx.Done():
			return time.Since(start), false
		case <-time.After(interval):
		}
		cur := s.Sample()
		used := float64(cur.CPU-prev.CPU) / float64(cur.At.Sub(prev.At))
		prev = cur
		if used < idleCores {
			if quiet++; quiet >= 3 {
				// The quiet intervals were idle already: do not count them.
				return time.Since(start) - 3*interval, true
			}
		} else {
			quiet = 0
		}
	}
	return time.Since(start), false
}
