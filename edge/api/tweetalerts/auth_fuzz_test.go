package tweetalerts

import (
	"bytes"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// FuzzAuthRoutes sends arbitrary bodies, content types and cookies to the
// /v1/auth/* routes (and a cookie to /v1/feed) through the real handlers:
// none may panic or answer 500.
func FuzzAuthRoutes(f *testing.F) {
	env := httpkittest.New(f, nil)
	sessions, err := tweetalerts.NewSessions(bytes.Repeat([]byte("k"), 32), time.Hour, env.Clock.Now)
	if err != nil {
		f.Fatal(err)
	}
	h := httpkittest.Router(Routes(env.Kit, Deps{Registry: tweetalerts.NewRegistry(env.Store, env.Clock.Now),
		Sessions: sessions, TelegramBotToken: "123:bot", Store: env.Store}))
	iss := env.IssueSub(f, "", protocol.ProductTweetAlerts, account.Changes{})
	key := iss.Key
	tok, _ := sessions.Issue(iss.Sub.AccountID, protocol.ProductTweetAlerts, "apikey", keyID(key))
	f.Add(uint8(4), []byte(nil), "", tok)
	f.Add(uint8(5), []byte(nil), "", tok)
	f.Add(uint8(0), []byte(`{"api_key":"`+key+`"}`), "application/json", "")
	f.Add(uint8(0), []byte(`{"api_key":"xg_x"}`), "application/json", "")
	f.Add(uint8(1), []byte(`{"id":42,"first_name":"Ann","auth_date":1700000000,"hash":"ab"}`), "application/json", "")
	f.Add(uint8(2), []byte(nil), "", "a.b.c")
	f.Add(uint8(3), []byte(`{}`), "application/json; charset=utf-8", "x")
	f.Add(uint8(4), []byte(nil), "", "eyJhbGciOiJIUzI1NiJ9.e30.x")
	f.Add(uint8(5), []byte(nil), "", "")
	routes := []struct{ method, uri string }{
		{"POST", "/v1/auth/apikey"}, {"POST", "/v1/auth/telegram"}, {"GET", "/v1/auth/session"},
		{"POST", "/v1/auth/logout"}, {"GET", "/v1/feed"}, {"DELETE", "/v1/auth/telegram/links/42"},
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte, ctype, cookie string) {
		r := routes[int(route)%len(routes)]
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(r.method)
		ctx.Request.SetRequestURI(r.uri)
		ctx.Request.Header.Set("Sec-Fetch-Site", "same-origin")
		if ctype != "" {
			ctx.Request.Header.SetContentType(ctype)
		}
		if cookie != "" {
			ctx.Request.Header.SetCookie(tweetalerts.SessionCookie, cookie)
		}
		ctx.Request.SetBody(body)
		h(&ctx)
		if ctx.Response.StatusCode() >= 500 {
			t.Fatalf("%s %s %q: %d %s", r.method, r.uri, body, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	})
}
