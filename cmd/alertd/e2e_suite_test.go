package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2E runs the API suite against one shared server per store. Every
// subtest makes its own accounts and handles, so they do not interfere.
func TestE2E(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.dbURL(t)})
		for _, c := range []struct {
			name string
			f    func(*testing.T, *server)
		}{
			{"Health", testHealth},
			{"AdminAuth", testAdminAuth},
			{"AdminIssueEveryProduct", testAdminIssueEveryProduct},
			{"AdminPatch", testAdminPatch},
			{"AdminDeactivateAndReissue", testAdminDeactivateAndReissue},
			{"AdminExpiry", testAdminExpiry},
			{"AdminParseFailures", testAdminParseFailures},
			{"B2BAuth", testB2BAuth},
			{"TweetAlertsAuth", testTweetAlertsAuth},
			{"SocialAuth", testSocialAuth},
			{"RateLimit", testRateLimit},
			{"IngestBatches", testIngestBatches},
			{"IngestRefusals", testIngestRefusals},
			{"LookupAndRename", testLookupAndRename},
			{"RenameOrdering", testRenameOrdering},
			{"HealthAfter", testHealth},
		} {
			t.Run(c.name, func(t *testing.T) { c.f(t, s) })
		}
	})
}

// TestE2ERestart shows that keys, subscriptions and users survive a restart
// on the same data dir / database, and that a server given no admin token
// makes one in <data-dir>/admin-token (mode 0600), logs it once and reuses it.
func TestE2ERestart(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		dir := t.TempDir()
		opts := serverOpts{dataDir: dir, dbURL: m.dbURL(t), noToken: true}
		tokenPath := filepath.Join(dir, "admin-token")

		s := startServer(t, opts)
		fi, err := os.Stat(tokenPath)
		if err != nil {
			t.Fatalf("no admin token file: %v", err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %v, want 0600", tokenPath, perm)
		}
		raw, err := os.ReadFile(tokenPath)
		if err != nil {
			t.Fatal(err)
		}
		token := strings.TrimSpace(string(raw))
		if len(token) < 16 {
			t.Fatalf("generated admin token %q is too short", token)
		}
		if !strings.Contains(s.stderr.String(), token) {
			t.Errorf("the generated admin token is not logged")
		}
		s.admin = token

		// State before the restart.
		xg := s.issue(t, map[string]any{"product": "xg"})
		s.patch(t, xg.account, "xg", map[string]any{"plan": "scale"}).wantOK(t, 200)
		end := time.Now().UTC().Add(10*24*time.Hour - time.Hour).Truncate(time.Second)
		dt := s.issue(t, map[string]any{"product": "dt", "account_id": xg.account, "plan": "pro"})
		s.patch(t, xg.account, "dt", map[string]any{"max_handles": 250, "late_delivery": true,
			"expires_at": end.Format(time.RFC3339)}).wantOK(t, 200)
		gone := s.issue(t, map[string]any{"product": "dt"})
		s.adminDo(t, "DELETE", "/admin/v1/keys/"+gone.key, nil).wantOK(t, 200)
		old := s.issue(t, map[string]any{"product": "dt"})
		nu := s.issue(t, map[string]any{"product": "dt", "account_id": old.account})
		expired := s.issue(t, map[string]any{"product": "dt", "expires_at": "2022-02-02T02:02:02Z"})
		cw := s.issue(t, map[string]any{"product": "cw", "max_handles": 100})

		u1, u2 := newUser("e2e_keep"), newUser("e2e_keep")
		wantIngest(t, s.ingest(t, "application/x-ndjson", u1.line(t)+"\n"+u2.line(t)+"\n"), 2)
		wantUser(t, s.waitUser(t, dt.key, u1.Handle), u1)
		// The rename goes in once the first name is in (testRenameOrdering
		// covers renames in quick succession).
		wantUser(t, s.waitUser(t, dt.key, u2.Handle), u2)
		u2b := u2
		u2b.Handle, u2b.Name = "e2e_kept_"+randomHex(4), "After Rename"
		wantIngest(t, s.ingest(t, "application/x-ndjson", u2b.line(t)), 1)
		wantUser(t, s.waitUser(t, dt.key, u2b.Handle), u2b)
		s.lookup(t, dt.key, u2.Handle).wantSocialErr(t, 404)

		// SIGTERM: exit 0 within 15 s, asserted by stop. The checks below
		// run even if that failed, to tell what was kept.
		s.stop(t)

		s = startServer(t, opts)
		if got, _ := os.ReadFile(tokenPath); strings.TrimSpace(string(got)) != token {
			t.Errorf("the admin token file changed across a restart")
		}
		if strings.Contains(s.stderr.String(), token) {
			t.Errorf("the admin token was logged again on a restart; it should be logged once, when generated")
		}
		s.admin = token
		s.adminDo(t, "POST", "/admin/v1/keys", map[string]any{"product": "sa"}).wantOK(t, 201) // the same token works

		sub := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200)
		if got := sub.str(t, "tier"); got != "scale" {
			t.Errorf("after restart: xg tier %q, want scale", got)
		}
		if got := sub.num(t, "account_limit"); got != 200 {
			t.Errorf("after restart: xg account_limit %v, want 200", got)
		}
		st := s.dtStatus(t, dt.key).wantOK(t, 200)
		if got := st.num(t, "max_handles"); got != 250 {
			t.Errorf("after restart: dt max_handles %v, want 250", got)
		}
		if got := st.num(t, "days_left"); got != 10 {
			t.Errorf("after restart: dt days_left %v, want 10", got)
		}
		mods := st.strings(t, "modules")
		for _, m := range []string{"realtime", "profile_watch", "followers", "late_delivery"} {
			if !contains(mods, m) {
				t.Errorf("after restart: dt modules %v lack %q", mods, m)
			}
		}
		s.dtStatus(t, gone.key).wantErr(t, 401, "key_deactivated")
		s.dtStatus(t, old.key).wantErr(t, 401, "key_unknown")
		s.dtStatus(t, nu.key).wantOK(t, 200)
		s.dtStatus(t, expired.key).wantErr(t, 401, "key_expired")
		if got := s.patch(t, cw.account, "cw", map[string]any{}).wantOK(t, 200).num(t, "max_handles"); got != 100 {
			t.Errorf("after restart: cw max_handles %v, want 100", got)
		}

		// The directory is loaded before /health says 200: no waiting.
		for _, u := range []userObs{u1, u2b} {
			r := s.lookup(t, dt.key, u.Handle)
			if r.status != 200 {
				t.Fatalf("after restart: %s", r)
			}
			wantUser(t, decodeObj(t, r.body, r.String()), u)
		}
		s.lookup(t, dt.key, u2.Handle).wantSocialErr(t, 404)
		testHealth(t, s)
	})
}

// TestE2EStoreFailure: a process that cannot open its store exits non-zero
// with a one-line reason on stderr (CONTRACT.md section 1).
func TestE2EStoreFailure(t *testing.T) {
	bin := alertdBinary(t)
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		args    []string
		mention string
	}{
		{"unreachable postgres", []string{"--database-url", "postgres://127.0.0.1:1/x"}, "127.0.0.1:1"},
		{"not a postgres url", []string{"--database-url", "mysql://u@127.0.0.1/x"}, "postgres"},
		{"data dir is a file", []string{"--data-dir", notADir}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"serve", "--addr", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
				"--admin-token", "adm_x"}, c.args...)
			if !contains(c.args, "--data-dir") {
				args = append(args, "--data-dir", t.TempDir())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = childEnv()
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.SysProcAttr = childSysProcAttr()
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still running after 40 s; stderr:\n%s", tail(stderr.String(), 3000))
			}
			if err == nil {
				t.Fatalf("exited 0; want a failure")
			}
			if cmd.ProcessState.ExitCode() <= 0 {
				t.Errorf("exit status %v, want a non-zero exit", cmd.ProcessState)
			}
			out := strings.TrimRight(stderr.String(), "\n")
			if out == "" || strings.Contains(out, "\n") {
				t.Fatalf("stderr is not one line:\n%s", out)
			}
			if strings.HasPrefix(out, "{") || strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
				t.Errorf("stderr is not a plain one-line reason: %s", out)
			}
			if c.mention != "" && !strings.Contains(out, c.mention) {
				t.Errorf("reason %q does not mention %q", out, c.mention)
			}
		})
	}
}
