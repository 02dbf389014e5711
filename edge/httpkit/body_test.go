package httpkit_test

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

func bodyCtx(ctype, body string) *fasthttp.RequestCtx {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	if ctype != "" {
		ctx.Request.Header.SetContentType(ctype)
	}
	ctx.Request.SetBodyString(body)
	return &ctx
}

// TestFields: the plain-text statuses of spec 1 for bodies the server
// cannot read, and the members of one it can.
func TestFields(t *testing.T) {
	big := `{"a":"` + strings.Repeat("x", protocol.MaxBodyBytes) + `"}`
	for _, c := range []struct {
		name, ctype, body string
		status            int
	}{
		{"object", "application/json", `{"a":1,"b":null}`, 0},
		{"charset", "Application/JSON; charset=utf-8", `{"a":1}`, 0},
		{"too large", "application/json", big, 413},
		{"empty", "application/json", " \n", 400},
		{"wrong type", "text/plain", `{"a":1}`, 415},
		{"no type", "", `{"a":1}`, 415},
		{"invalid", "application/json", `{"a":`, 400},
		{"array", "application/json", `[1]`, 400},
		{"null", "application/json", `null`, 400},
	} {
		m, perr := httpkit.Fields(bodyCtx(c.ctype, c.body))
		switch {
		case c.status == 0 && (perr != nil || len(m) == 0):
			t.Errorf("%s: %v %v", c.name, m, perr)
		case c.status != 0 && (perr == nil || perr.Status != c.status):
			t.Errorf("%s: %v, want status %d", c.name, perr, c.status)
		}
	}
	m, _ := httpkit.Fields(bodyCtx("application/json", `{"a":1,"b":null,"c":" null "}`))
	if httpkit.IsNull(m["a"]) || !httpkit.IsNull(m["b"]) || httpkit.IsNull(m["c"]) {
		t.Errorf("IsNull: %v", m)
	}
	if e := httpkit.MissingField("url"); e.Status != 422 || e.Error() != `unprocessable entity: body has no "url" field` {
		t.Errorf("MissingField: %d %s", e.Status, e)
	}
}
