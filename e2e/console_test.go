package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestConsoleAPI covers the operator console's /admin/v1 routes on both
// stores: the admin bearer guards them; stats count what ingest accepted
// and rejected and name the store with its size; the accounts list shows a
// fresh account first with its subscription and key (by id); a key is
// revoked by id (key_deactivated afterwards), and only for its account.
func TestConsoleAPI(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		for _, p := range []string{"/admin/v1/stats", "/admin/v1/accounts"} {
			s.do(t, "GET", p, nil, nil).wantErr(t, 401, "unauthorized")
			s.do(t, "GET", p, bearer("adm_wrong"), nil).wantErr(t, 401, "unauthorized")
		}

		s.ingest(t, "application/x-ndjson", "{\"kind\":\"nope\"}\n"+newUser("con").line(t)).wantOK(t, 200)
		s.sync(t)
		d := s.adminDo(t, "GET", "/admin/v1/stats", nil).wantOK(t, 200)
		d.wantKeys(t, "stats", "time", "store", "connections", "closes", "ingest", "deliveries", "webhooks",
			"failing_endpoints", "chat", "delivery_log", "cluster", "rates")
		in := d.object(t, "ingest")
		if in.num(t, "accepted") != 1 || in.num(t, "rejected") != 1 {
			t.Errorf("ingest %v, want 1 accepted and 1 rejected", in)
		}
		st := d.object(t, "store")
		if want := map[string]string{"embedded": "embedded", "postgres": "postgres"}[m.Name]; st.str(t, "kind") != want || st.num(t, "size_bytes") <= 0 {
			t.Errorf("store %v", st)
		}
		if c := d.object(t, "connections").object(t, "by_kind"); len(c) != 4 {
			t.Errorf("connections by kind %v, want realtime, tweet_only, xg, product", c)
		}

		k := s.xgKey(t, "pro")
		other := s.xgKey(t, "pro")
		list := s.adminDo(t, "GET", "/admin/v1/accounts", nil).wantOK(t, 200)
		accounts := list.array(t, "accounts")
		first := decodeObj(t, accounts[0], "account")
		if first.str(t, "account_id") != other.account {
			t.Fatalf("first account %v, want the newest %s", first, other.account)
		}
		var keyID string
		for _, raw := range accounts {
			a := decodeObj(t, raw, "account")
			if a.str(t, "account_id") != k.account {
				continue
			}
			subs := a.array(t, "subscriptions")
			keys := a.array(t, "keys")
			if len(subs) != 1 || decodeObj(t, subs[0], "sub").str(t, "plan") != "pro" || len(keys) != 1 {
				t.Fatalf("account %v", a)
			}
			key := decodeObj(t, keys[0], "key")
			key.wantKeys(t, "key", "key_id", "product", "state", "created_at", "updated_at")
			keyID = key.str(t, "key_id")
		}
		if len(keyID) != 64 {
			t.Fatalf("no key id for %s", k.account)
		}
		if b, _ := json.Marshal(list); strings.Contains(string(b), k.key) {
			t.Errorf("the accounts list shows a key in clear")
		}

		s.adminDo(t, "DELETE", "/admin/v1/accounts/"+other.account+"/keys/"+keyID, nil).wantErr(t, 404, "not_found")
		s.adminDo(t, "DELETE", "/admin/v1/accounts/"+k.account+"/keys/abc", nil).wantErr(t, 400, "bad_request")
		s.adminDo(t, "DELETE", "/admin/v1/accounts/"+k.account+"/keys/"+keyID, nil).wantOK(t, 200)
		s.do(t, "GET", "/v1/subscription", bearer(k.key), nil).wantErr(t, 401, "unauthorized")
	})
}
