package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildRef builds ./cmd/alertd as of git ref into dir and returns the
// binary's path. The sources are checked out with `git worktree add` into a
// directory under the system temp dir (outside the repository), removed
// again afterwards.
func buildRef(ctx context.Context, ref, dir string) (string, error) {
	top, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("find the repository: %v", err)
	}
	repo := strings.TrimSpace(string(top))
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	wt := filepath.Join(os.TempDir(), "alertd-old-"+hex.EncodeToString(rnd[:]))
	if out, err := exec.CommandContext(ctx, "git", "-C", repo, "worktree", "add", "--detach", wt, ref).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git worktree add %s %s: %v\n%s", wt, ref, err, out)
	}
	defer func() {
		if out, err := exec.Command("git", "-C", repo, "worktree", "remove", "--force", wt).CombinedOutput(); err != nil {
			logf("git worktree remove %s: %v\n%s", wt, err, out)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "alertd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/alertd")
	cmd.Dir = wt
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/alertd at %s: %v\n%s", ref, err, out.String())
	}
	return bin, nil
}

// gitCommit is the short commit of the working tree, with a note when it has
// changes (the bench measures the tree, not the commit).
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown commit"
	}
	c := strings.TrimSpace(string(out))
	// Reports under bench/results do not change what is measured.
	if st, err := exec.Command("git", "status", "--porcelain", "--", ":/", ":(top,exclude)bench/results").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += " + uncommitted changes"
	}
	return c
}
