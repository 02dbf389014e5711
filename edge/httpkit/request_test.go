package httpkit_test

import (
	"testing"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

func TestPage(t *testing.T) {
	for _, c := range []struct {
		query         string
		limit, offset int
		bad           bool
	}{
		{"", 50, 0, false},
		{"limit=10&offset=5", 10, 5, false},
		{"limit=900", 200, 0, false},
		{"limit=0", 0, 0, true},
		{"limit=x", 0, 0, true},
		{"offset=-1", 0, 0, true},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/v1/x?" + c.query)
		l, o, err := httpkit.Page(&ctx, 50, 200)
		if (err != nil) != c.bad || (!c.bad && (l != c.limit || o != c.offset)) {
			t.Errorf("%q: %d %d %v", c.query, l, o, err)
		}
	}
}

func TestPathValues(t *testing.T) {
	var ctx fasthttp.RequestCtx
	ctx.SetUserValue("handle", "@Whale")
	ctx.SetUserValue("id", []byte("42"))
	if httpkit.PathHandle(&ctx) != "whale" || httpkit.PathValue(&ctx, "id") != "42" || httpkit.PathValue(&ctx, "none") != "" {
		t.Errorf("%q %q", httpkit.PathHandle(&ctx), httpkit.PathValue(&ctx, "id"))
	}
	ctx.SetUserValue("handle", "not a handle")
	if httpkit.PathHandle(&ctx) != "" {
		t.Error("an invalid handle read")
	}
}

func TestHandleBody(t *testing.T) {
	for body, want := range map[string]int{
		`{"handle":"@Whale"}`: 0, `{}`: 422, `{"handle":1}`: 400, `{"handle":"@"}`: 400, `{"handle":"a b"}`: 400,
	} {
		h, _, err := httpkit.HandleBody(bodyCtx("application/json", body))
		if status(err) != want || (want == 0 && h != "whale") {
			t.Errorf("%s: %q %v", body, h, err)
		}
	}
}

// status of a decoder's error: 0 for nil.
func status(err error) int {
	switch e := err.(type) {
	case nil:
		return 0
	case *protocol.APIError:
		return e.Status
	case *httpkit.ParseError:
		return e.Status
	}
	return -1
}

func TestNewSecret(t *testing.T) {
	a, b := httpkit.NewSecret(), httpkit.NewSecret()
	if len(a) != 64 || a == b {
		t.Fatalf("%q %q", a, b)
	}
}

// FuzzIntMember: an accepted integer lies within the bounds asked for.
func FuzzIntMember(f *testing.F) {
	for _, s := range []string{`{"n":5}`, `{"n":-1}`, `{"n":1.5}`, `{"n":"1"}`, `{"n":null}`, `{"n":9223372036854775807}`, `{"n":1e3}`, `{}`} {
		f.Add([]byte(s), int64(0), int64(-1))
		f.Add([]byte(s), int64(2), int64(20))
	}
	f.Fuzz(func(t *testing.T, body []byte, lo, hi int64) {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		v, ok, err := httpkit.IntMember(m, "n", lo, hi)
		if err == nil && ok && (v < lo || (hi >= 0 && v > hi)) {
			t.Fatalf("n = %d accepted outside [%d, %d]", v, lo, hi)
		}
		if _, present := m["n"]; !present && (ok || err != nil) {
			t.Fatal("an absent member read")
		}
	})
}
