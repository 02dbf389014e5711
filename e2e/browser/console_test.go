package browser

import (
	"regexp"
	"testing"

	"github.com/alertd/alertd/internal/testkit"
)

// TestConsole: a wrong admin token is refused with a message; the right
// one opens the console, which issues a key from its form (shown once),
// lists the fresh account at the top, counts the open connection the key
// makes, changes the plan and revokes the key.
func TestConsole(t *testing.T) {
	s := startServer(t, nil)
	p := open(t, s, "/admin/")
	p.until("the sign-in form", visible(`input[name="admin_token"]`))
	p.fill(`input[name="admin_token"]`, "adm_wrong")
	p.click(`#signin button[type="submit"]`)
	p.until("the refusal", contains("#signin-msg", "not accepted"))

	p.fill(`input[name="admin_token"]`, s.admin)
	p.click(`#signin button[type="submit"]`)
	p.until("the console", visible("#app")+" && "+contains("#store", "embedded"))

	p.fill("#f-plan", "pro")
	p.click(`#issue button[type="submit"]`)
	p.until("the new key", visible("#issued-key"))
	key := p.text("#issued-key")
	acct := regexp.MustCompile(`acc_[0-9a-f]{16}`).FindString(p.text("#issued"))
	if !regexp.MustCompile(`^xg_[0-9a-f]{48}$`).MatchString(key) || acct == "" {
		t.Fatalf("issued %q for %q", key, acct)
	}
	p.until("the fresh account first in the list", contains("#accounts-table tbody tr:first-child", acct))

	ws, res, err := testkit.DialWS(t, "ws://"+s.host+"/v1/ws?api_key="+key, testkit.DialOptions{})
	if err != nil {
		t.Fatalf("socket with the new key: %v %s", err, testkit.ResponseText(res))
	}
	p.until("one open xg connection", contains(`#conn-table tr[data-kind="xg"]`, "1")+` && document.querySelector('#conn-total').innerText === '1'`)

	row := `#accounts-table tr[data-account="` + acct + `"]`
	p.fill(row+` form.inline input`, "growth")
	p.click(row + ` form.inline button`)
	p.until("the plan changed", contains("#accounts-msg", "plan growth"))
	if got := s.call(t, "GET", "/admin/v1/accounts", nil, 200); !regexp.MustCompile(`"plan":"growth"`).MatchString(jsonText(got)) {
		t.Errorf("the server did not change the plan: %v", got)
	}

	eval[bool](p, `(window.confirm = () => true, true)`)
	p.click(row + ` .key[data-state="active"] button`)
	p.until("the key revoked", contains("#accounts-msg", "revoked"))
	p.until("the key listed as deactivated", contains(row, "deactivated"))
	s.callAs(t, key, "GET", "/v1/subscription", nil, 401)
	ws.Close()
}
