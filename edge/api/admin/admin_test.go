package admin

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/internal/testkit"
	json "github.com/goccy/go-json"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestAdminAPI(t *testing.T) {
	e := httpkittest.New(t, nil)
	h := httpkittest.Router(Routes(e.Kit, Deps{Accounts: e.Accounts}))
	adm := httpkittest.Bearer("adm")
	do := func(method, uri, body string) (int, string) {
		r := httpkittest.Do(h, httpkittest.Request{Method: method, URI: uri, Headers: adm, Body: body})
		return r.StatusCode(), string(r.Body())
	}
	status, body := do("POST", "/admin/v1/keys", `{"product":"dt","max_handles":5,"modules":["realtime"]}`)
	var issued struct {
		Data struct {
			AccountID string `json:"account_id"`
			Key       string `json:"key"`
		} `json:"data"`
	}
	if status != 201 || json.Unmarshal([]byte(body), &issued) != nil || !strings.HasPrefix(issued.Data.Key, "dt_") {
		t.Fatalf("issue: %d %s", status, body)
	}
	for _, c := range []struct {
		method, uri, body string
		status            int
		has               string
	}{
		{"POST", "/admin/v1/keys", `{"plan":"pro"}`, 422, `body has no "product" field`},
		{"POST", "/admin/v1/keys", `{"product":"zz"}`, 400, "product must be one of"},
		{"POST", "/admin/v1/keys", `{"product":"cw","colour":1}`, 400, "unknown field colour"},
		{"POST", "/admin/v1/keys", `{"product":"cw","max_handles":"5"}`, 400, "max_handles must be an integer"},
		{"POST", "/admin/v1/keys", `{"product":"cw","expires_at":"tomorrow"}`, 400, "RFC 3339"},
		{"PATCH", "/admin/v1/accounts/" + issued.Data.AccountID + "/products/dt", `{"max_handles":9,"expires_at":null}`, 200, `"max_handles":9`},
		{"PATCH", "/admin/v1/accounts/" + issued.Data.AccountID + "/products/zz", `{}`, 404, "no such product"},
		{"PATCH", "/admin/v1/accounts/nobody/products/dt", `{"plan":"x"}`, 404, "subscription not found"},
		{"DELETE", "/admin/v1/keys/" + issued.Data.Key, "", 200, `"deactivated":true`},
		{"DELETE", "/admin/v1/keys/dt_nothing", "", 404, "key not found"},
	} {
		if status, body := do(c.method, c.uri, c.body); status != c.status || !strings.Contains(body, c.has) {
			t.Errorf("%s %s %s: %d %s", c.method, c.uri, c.body, status, body)
		}
	}
	if r := httpkittest.Do(h, httpkittest.Request{Method: "POST", URI: "/admin/v1/keys", Body: `{"product":"dt"}`}); r.StatusCode() != 401 {
		t.Errorf("no admin token: %d", r.StatusCode())
	}
}

// FuzzChanges: the admin body decoder refuses what it cannot read with a
// 400 and never panics.
func FuzzChanges(f *testing.F) {
	for _, s := range []string{`{"plan":"pro","modules":["posts"],"max_handles":5}`, `{"expires_at":null}`,
		`{"expires_at":"2026-01-02T00:00:00Z","ca_search_daily_limit":null}`, `{"late_delivery":"yes"}`, `{"x":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil {
			return
		}
		if _, err := parseChanges(m); err != nil && err.Status != 400 {
			t.Fatalf("status %d", err.Status)
		}
	})
}
