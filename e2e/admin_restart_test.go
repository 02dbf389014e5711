package e2e

import (
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestAdminRestart shows that keys, subscriptions and users survive a
// restart on the same data dir / database. (The generated admin token file
// is a process's business: cmd/alertd tests it.)
func TestAdminRestart(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})

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
		s.sync(t)
		wantUser(t, s.userNow(t, dt.key, u1.Handle), u1)
		wantUser(t, s.userNow(t, dt.key, u2.Handle), u2)
		// The rename goes in once the first name is in (testRenameOrdering
		// covers renames in quick succession).
		u2b := u2
		u2b.Handle, u2b.Name = "e2e_kept_"+testkit.RandomHex(4), "After Rename"
		wantIngest(t, s.ingest(t, "application/x-ndjson", u2b.line(t)), 1)
		s.sync(t)
		wantUser(t, s.userNow(t, dt.key, u2b.Handle), u2b)
		s.lookup(t, dt.key, u2.Handle).wantSocialErr(t, 404)

		s = s.restart(t)
		s.adminDo(t, "POST", "/admin/v1/keys", map[string]any{"product": "sa"}).wantOK(t, 201) // the same token works

		sub := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200)
		if got := sub.str(t, "tier"); got != "Scale" {
			t.Errorf("after restart: xg tier %q, want Scale", got)
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

		// The directory is loaded before Start returns: no waiting.
		for _, u := range []userObs{u1, u2b} {
			wantUser(t, s.userNow(t, dt.key, u.Handle), u)
		}
		s.lookup(t, dt.key, u2.Handle).wantSocialErr(t, 404)
		testHealth(t, s)
	})
}
