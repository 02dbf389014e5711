package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestProcessDataDirLocked: a second process on a data dir in use exits
// non-zero with a one-line reason naming the first one's pid, and leaves the
// first one serving; once the first has stopped, the data dir is free again.
func TestProcessDataDirLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no subprocess tests")
	}
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--admin-token", "adm_lock_" + testkit.RandomHex(8)}
	first := startProc(t, args)

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, alertdBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = childEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = childSysProcAttr()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the second process still runs after 40 s; stderr:\n%s", testkit.Tail(stderr.String(), 3000))
	}
	if err == nil || cmd.ProcessState.ExitCode() <= 0 {
		t.Fatalf("second process: exit status %v, want a non-zero exit", cmd.ProcessState)
	}
	out := strings.TrimRight(stderr.String(), "\n")
	if strings.Contains(out, "\n") || !strings.Contains(out, "in use") || !strings.Contains(out, fmt.Sprint("pid ", first.cmd.Process.Pid)) {
		t.Fatalf("second process: want one line naming pid %d, got:\n%s", first.cmd.Process.Pid, out)
	}
	if code, _ := first.call(t, "GET", "/health", "", nil); code != 200 {
		t.Fatalf("the first process after the refused second: /health %d", code)
	}
	first.stop(t)
	startProc(t, args) // the lock went with the first process
}
