package httpkit_test

import (
	"testing"

	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/valyala/fasthttp"
)

func TestAdminBearer(t *testing.T) {
	e := httpkittest.New(t, nil) // admin token "adm"
	h := e.Kit.Admin(func(ctx *fasthttp.RequestCtx) { ctx.SetStatusCode(204) })
	for _, c := range []struct {
		auth   string
		status int
	}{
		{"Bearer adm", 204},
		{"bearer  adm ", 204},
		{"", 401},
		{"Bearer", 401},
		{"Bearer ad", 401},
		{"Bearer admx", 401},
		{"Basic adm", 401},
		{"adm", 401},
	} {
		var hd map[string]string
		if c.auth != "" {
			hd = map[string]string{"Authorization": c.auth}
		}
		r := get(h, "/admin/v1/keys", hd)
		if r.StatusCode() != c.status {
			t.Errorf("%q: %d, want %d", c.auth, r.StatusCode(), c.status)
		}
		if c.status == 401 && envelopeCode(t, r) != "unauthorized" {
			t.Errorf("%q: %s", c.auth, r.Body())
		}
	}
}
