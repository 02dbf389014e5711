package e2e

import (
	"strings"
	"testing"
)

// testDashboardSession: what the web dashboard relies on beyond spec 1's
// two sign-in routes. The session cookie works on every Tweet Alerts REST
// route; a change made with it needs the dashboard's own origin (CSRF);
// GET /v1/auth/session says who is signed in; the cookie is Secure only
// over TLS; revoking the key that signed in ends the session; sign-out
// clears the cookie.
func testDashboardSession(t *testing.T, s *server) {
	k := s.xgKey(t, "growth")
	hs := s.xgUsers(t, 2, false)
	tok := s.xgLogin(t, k.key)
	cookie := xgWithCookie(tok)

	d := s.do(t, "GET", "/v1/auth/session", cookie, nil).wantOK(t, 200)
	if d.str(t, "product") != "xg" || d.str(t, "tier") != "growth" || d.str(t, "via") != "apikey" {
		t.Errorf("session %v", d)
	}
	s.do(t, "GET", "/v1/auth/session", nil, nil).wantErr(t, 401, "unauthorized")
	s.do(t, "GET", "/v1/subscription", cookie, nil).wantOK(t, 200)
	s.do(t, "GET", "/v1/settings", cookie, nil).wantOK(t, 200)
	s.do(t, "GET", "/v1/webhooks", cookie, nil).wantOK(t, 200)

	// A change with the cookie: from the page's origin yes, cross-site or
	// without any origin no.
	add := `{"handles":["` + hs[0] + `"]}`
	with := func(extra hdr) hdr {
		h := hdr{"Cookie": "xg_session=" + tok, "Content-Type": "application/json"}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	s.do(t, "POST", "/v1/accounts", with(nil), add).wantErr(t, 403, "forbidden")
	s.do(t, "POST", "/v1/accounts", with(hdr{"Sec-Fetch-Site": "cross-site"}), add).wantErr(t, 403, "forbidden")
	s.do(t, "POST", "/v1/accounts", with(hdr{"Origin": "http://evil.example"}), add).wantErr(t, 403, "forbidden")
	s.do(t, "POST", "/v1/accounts", with(hdr{"Sec-Fetch-Site": "same-origin"}), add).wantOK(t, 201)
	s.do(t, "DELETE", "/v1/accounts/"+hs[0], with(hdr{"Origin": s.base}), nil).wantOK(t, 200)

	// Secure when a TLS-terminating proxy says the client came over TLS.
	r := s.do(t, "POST", "/v1/auth/apikey", hdr{"Content-Type": "application/json", "X-Forwarded-Proto": "https"},
		`{"api_key":"`+k.key+`"}`)
	r.wantOK(t, 200)
	if c := r.header.Get("Set-Cookie"); !strings.Contains(strings.ToLower(c), "secure") {
		t.Errorf("cookie behind a TLS proxy is not Secure: %s", c)
	}

	// Sign-out clears the cookie (same origin only).
	s.do(t, "POST", "/v1/auth/logout", cookie, nil).wantErr(t, 403, "forbidden")
	r = s.do(t, "POST", "/v1/auth/logout", with(hdr{"Sec-Fetch-Site": "same-origin"}), nil)
	r.wantOK(t, 200)
	if c := r.header.Get("Set-Cookie"); !strings.HasPrefix(c, "xg_session=;") || !strings.Contains(strings.ToLower(c), "max-age=0") {
		t.Errorf("sign-out Set-Cookie %q, want the cookie cleared", c)
	}

	// Revoking the key ends every session it opened, REST and socket upgrade.
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+k.key, nil).wantOK(t, 200)
	s.do(t, "GET", "/v1/auth/session", cookie, nil).wantErr(t, 401, "unauthorized")
	s.do(t, "GET", "/v1/feed", cookie, nil).wantErr(t, 401, "unauthorized")
	s.xgRefused(t, "", xgCookieHeader(tok), 401)

	// Regenerating does too: a session of the old key is over.
	k2 := s.xgKey(t, "growth")
	tok2 := s.xgLogin(t, k2.key)
	s.issue(t, map[string]any{"product": "xg", "account_id": k2.account, "plan": "growth"})
	s.do(t, "GET", "/v1/accounts", xgWithCookie(tok2), nil).wantErr(t, 401, "unauthorized")
}
