package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/alertd/alertd/internal/testkit"
)

// A contract address (Solana base58) the page must show as one.
const solanaCA = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"

// TestDashboardLiveFeed: sign in with an xg_ key through the form, see the
// history from /v1/feed, then a new post arrive over /v1/ws without a
// reload, with its image and contract address; the filter box hides what
// does not match; the cookie is HttpOnly, SameSite=Lax and (plain HTTP)
// not Secure.
func TestDashboardLiveFeed(t *testing.T) {
	s := startServer(t, nil)
	key, _ := s.issue(t, map[string]any{"product": "xg", "plan": "growth"})
	u := s.user("live")
	s.ingest(t, u)
	s.callAs(t, key, "POST", "/v1/accounts", map[string]any{"handles": []string{u["handle"].(string)}}, 201)
	s.ingest(t, s.post(u, "an older post from the history"))

	p := open(t, s, "/")
	p.signIn(key)
	p.until("the history", contains("#feed-list", "an older post from the history"))
	p.until("the live badge", `document.querySelector('#live').dataset.state === 'live'`)
	eval[bool](p, `window.notReloaded = true`)

	s.ingest(t, s.post(u, "a fresh post with "+solanaCA))
	p.until("the new post at the top", contains("#feed-list li:first-child", "a fresh post"))
	if !eval[bool](p, `window.notReloaded === true`) {
		t.Errorf("the page reloaded to show the post")
	}
	p.until("the contract address", contains("#feed-list li:first-child .ca code", solanaCA))
	p.until("the image", `!!document.querySelector('#feed-list li:first-child .post-media img')`)

	p.fill("#feed-filter", "older post")
	p.until("the filter hides the fresh post", `document.querySelector('#feed-list li:first-child').hidden`)
	p.until("the filter keeps the older post", `![...document.querySelectorAll('#feed-list li')].pop().hidden`)

	var found bool
	for _, c := range p.cookies() {
		if c.Name == "xg_session" {
			found = true
			if !c.HTTPOnly || c.Secure || string(c.SameSite) != "Lax" {
				t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, not Secure over plain HTTP", c)
			}
		}
	}
	if !found {
		t.Errorf("no xg_session cookie after sign-in")
	}
	if eval[bool](p, `document.cookie.includes('xg_session')`) {
		t.Errorf("the page's script can read the session cookie")
	}
}

// TestDashboardTrackAndWebhook: add tracked accounts from the page (one
// unknown handle is skipped), then create a webhook and see its secret
// once: it is gone after "I have saved it" and after a reload; a post of a
// tracked account shows up in the webhook's delivery log.
func TestDashboardTrackAndWebhook(t *testing.T) {
	s := startServer(t, nil)
	key, _ := s.issue(t, map[string]any{"product": "xg", "plan": "growth"})
	u1, u2 := s.user("trk"), s.user("trk")
	s.ingest(t, u1, u2)
	h1, h2 := u1["handle"].(string), u2["handle"].(string)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(hook.Close)

	p := open(t, s, "/")
	p.signIn(key)
	p.click(`nav.tabs a[data-view="accounts"][data-product="xg"]`)
	p.until("the accounts view", visible("#accounts-add"))
	p.fill("#accounts-handles", "@"+h1+", "+h2+" nosuchhandle_zz")
	p.click(`#accounts-add button[type="submit"]`)
	p.until("both handles in the table", contains("#accounts-table", h1)+" && "+contains("#accounts-table", h2))
	p.until("the skipped handle reported", contains("#accounts-msg", "nosuchhandle_zz"))
	d := s.callAs(t, key, "GET", "/v1/accounts", nil, 200)
	if d["count"].(float64) != 2 {
		t.Errorf("server lists %v tracked accounts, want 2", d["count"])
	}

	p.click(`nav.tabs a[data-view="webhooks"]`)
	p.until("the webhooks view", visible("#webhooks-add"))
	p.fill("#webhook-url", hook.URL+"/alertd")
	p.fill("#webhook-handles", h1)
	p.click(`#webhooks-add button[type="submit"]`)
	p.until("the secret", visible("#webhook-secret-value"))
	secret := p.text("#webhook-secret-value")
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(secret) {
		t.Fatalf("secret shown %q, want 64 hex characters", secret)
	}
	p.until("the webhook in the list", contains("#webhooks-table", hook.URL+"/alertd"))
	p.click(`#webhook-secret button.primary`)
	p.until("the secret gone", `!document.querySelector('#webhook-secret-value')`)
	if p.has(secret) {
		t.Errorf("the secret is still on the page")
	}
	// A post of h1 reaches the webhook; its delivery log shows the receiver's 200.
	s.ingest(t, s.post(u1, "a post for the webhook"))
	hooks := s.callAs(t, key, "GET", "/v1/webhooks", nil, 200)["webhooks"].([]any)
	log := fmt.Sprintf("/admin/v1/webhooks/%v/deliveries?product=xg", hooks[0].(map[string]any)["id"])
	testkit.WaitFor(t, wait, "the delivery logged", func() (bool, string) { // the admin API: no rate limit
		d := s.call(t, "GET", log, nil, 200)["deliveries"].([]any)
		return len(d) == 1 && d[0].(map[string]any)["state"] == "delivered", fmt.Sprint(d)
	})
	p.click(`#webhooks-table button[aria-label^="Deliveries of webhook"]`)
	p.until("the delivery in the log", contains("#deliveries-table tr.delivery", "delivered")+" && "+contains("#deliveries-table tr.delivery", "200"))
	// A narrow window (a phone): nothing wider than the screen.
	p.do(chromedp.EmulateViewport(390, 800))
	p.until("no horizontal scrolling at 390 px", `document.documentElement.scrollWidth <= window.innerWidth`)
	p.do(chromedp.Reload())
	p.until("the dashboard after reload", visible("#app"))
	p.click(`nav.tabs a[data-view="webhooks"]`)
	p.until("the webhook listed again", contains("#webhooks-table", hook.URL+"/alertd"))
	if p.has(secret) {
		t.Errorf("the secret is shown again after a reload")
	}
}

// TestDashboardB2BEvents: a dt_ key sees its targets, adds one from the
// page, and watches its live events (a post, a profile change, a deletion)
// arrive on the B2B realtime socket, logged in with the key the page keeps
// in memory.
func TestDashboardB2BEvents(t *testing.T) {
	s := startServer(t, nil)
	key, _ := s.issue(t, map[string]any{"product": "dt", "plan": "enterprise"})
	u := s.user("b2b")
	s.ingest(t, u)
	h := u["handle"].(string)

	p := open(t, s, "/")
	p.signIn(key)
	p.click(`nav.tabs a[data-view="accounts"][data-product="dt"]`)
	p.until("the targets view", contains("#accounts-title", "Targets"))
	p.fill("#accounts-handles", h)
	p.click(`#accounts-add button[type="submit"]`)
	p.until("the target listed", contains("#accounts-table", h))

	p.click(`nav.tabs a[data-view="feed"]`)
	p.until("the realtime socket ready", contains("#feed-status", "every event of your targets"))
	s.ingest(t, s.post(u, "a live B2B post"))
	p.until("the post event", contains("#feed-list li:first-child", "a live B2B post"))

	renamed := map[string]any{}
	for k, v := range u {
		renamed[k] = v
	}
	renamed["name"] = "A New Name"
	s.ingest(t, renamed)
	p.until("the profile event", contains("#feed-list", "A New Name"))
	s.ingest(t, map[string]any{"kind": "post_deleted", "handle": h, "tweet_id": nil, "text": "gone now"})
	p.until("the deletion event", contains("#feed-list li:first-child", "deleted a post"))
	if p.has(key) {
		t.Errorf("the key is shown on the page")
	}
}

// TestDashboardBadKey: a refused key shows a clear message and sets no
// cookie.
func TestDashboardBadKey(t *testing.T) {
	s := startServer(t, nil)
	p := open(t, s, "/")
	p.until("the sign-in form", visible(`input[name="api_key"]`))
	// By keyboard: Enter in the field submits.
	p.fill(`input[name="api_key"]`, "xg_000000000000000000000000000000000000000000000000"+kb.Enter)
	p.until("the refusal", visible("#signin-msg")+" && "+contains("#signin-msg", "This key was not accepted"))
	if len(p.cookies()) != 0 {
		t.Errorf("cookies after a refused key: %v", p.cookies())
	}
	if eval[bool](p, `!document.querySelector('#app').hidden`) {
		t.Errorf("the dashboard shows after a refused key")
	}
}

// TestDashboardRevokedKey: once the key that signed in is revoked, the
// page falls back to the sign-in form at its next request and says why.
func TestDashboardRevokedKey(t *testing.T) {
	s := startServer(t, nil)
	key, _ := s.issue(t, map[string]any{"product": "xg", "plan": "starter"})
	p := open(t, s, "/")
	p.signIn(key)
	s.call(t, "DELETE", "/admin/v1/keys/"+key, nil, 200)
	// Any request now ends the session. The page may already have noticed
	// (its live socket closes with the key) and hidden the tabs, so the
	// click is a script click, which needs no visible target.
	eval[bool](p, `(document.querySelector('nav.tabs a[data-view="plan"]').click(), true)`)
	p.until("the sign-in form again", visible(`input[name="api_key"]`)+" && "+contains("#signin-msg", "Your session ended"))
	if !eval[bool](p, `document.querySelector('#app').hidden`) {
		t.Errorf("the dashboard is still shown")
	}
}
