package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/alertd/alertd/internal/testkit"
)

// TestProcessSIGKILLAfterTargetAdds: a 201 of POST /v1/dt/targets means the
// target is stored. Targets are added and removed and the process is killed
// (SIGKILL) right after the last answer; on the embedded store that is
// before the store is written behind the registry's journal. After a
// restart on the same data dir and store the list is the same, ids
// included; after a clean stop and a third start (nothing to replay) too.
func TestProcessSIGKILLAfterTargetAdds(t *testing.T) {
	testkit.ForEachStore(t, func(t *testing.T, st testkit.Store) {
		token := "adm_e2e_" + testkit.RandomHex(16)
		args := []string{"--data-dir", t.TempDir(), "--admin-token", token}
		if u := st.DatabaseURL(t); u != "" {
			args = append(args, "--database-url", u)
		}
		p := startProc(t, args)
		p.admin = token
		key := p.data(t, "POST", "/admin/v1/keys", p.admin, map[string]any{"product": "dt", "plan": "enterprise", "max_handles": 100}, 201)["key"].(string)
		prefix := "kill_" + testkit.RandomHex(3)
		for i := range 40 {
			p.data(t, "POST", "/v1/dt/targets", key, map[string]any{"handle": fmt.Sprintf("%s_%02d", prefix, i)}, 201)
		}
		for i := 0; i < 40; i += 7 {
			p.data(t, "DELETE", fmt.Sprintf("/v1/dt/targets/%s_%02d", prefix, i), key, nil, 200)
		}
		want := listTargets(t, p, key)
		p.kill()

		for _, start := range []string{"after the kill", "after a clean stop"} {
			p = startProc(t, args)
			p.admin = token
			if got := listTargets(t, p, key); got != want {
				t.Fatalf("targets %s:\n got %s\nwant %s", start, got, want)
			}
			p.stop(t)
		}
	})
}

// listTargets is GET /v1/dt/targets as sorted "id handle active" lines.
func listTargets(t *testing.T, p *proc, key string) string {
	t.Helper()
	d := p.data(t, "GET", "/v1/dt/targets", key, nil, 200)
	list, _ := d["targets"].([]any)
	var rows []string
	for _, x := range list {
		m, _ := x.(map[string]any)
		rows = append(rows, fmt.Sprint(m["id"], " ", m["screen_name"], " ", m["is_active"], " ", m["created_at"]))
	}
	sort.Strings(rows)
	return fmt.Sprint(len(rows), " targets: ", strings.Join(rows, ", "))
}
