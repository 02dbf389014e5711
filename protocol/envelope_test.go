package protocol

import (
	"testing"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

func TestAppendErrorShape(t *testing.T) {
	got := string(AppendError(nil, &APIError{Status: 429, Code: CodeRateLimited, Message: `slow "down"`, Hint: "wait", RetryAfter: 1}))
	want := `{"ok":false,"error":"slow \"down\"","code":"rate_limited","hint":"wait","retry_after":1}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := string(AppendError(nil, NotFound("x"))); got != `{"ok":false,"error":"x","code":"not_found"}` {
		t.Fatalf("optional fields not omitted: %s", got)
	}
}

func TestAppendOK(t *testing.T) {
	b, err := AppendOK(nil, map[string]int{"a": 1})
	if err != nil || string(b) != `{"ok":true,"data":{"a":1}}` {
		t.Fatalf("%s %v", b, err)
	}
}

func TestStatusCodes(t *testing.T) {
	for status, code := range map[int]string{400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
		409: "conflict", 429: "rate_limited", 500: "server_error", 502: "server_error", 503: "service_unavailable"} {
		if got := StatusCode(status); got != code {
			t.Errorf("StatusCode(%d) = %s, want %s", status, got, code)
		}
	}
}

func FuzzAppendError(f *testing.F) {
	f.Add("msg", "code", "hint", 3)
	f.Add("\xff\x00\"\\", "", "", -1)
	f.Fuzz(func(t *testing.T, msg, code, hint string, retry int) {
		b := AppendError(nil, &APIError{Status: 400, Code: code, Message: msg, Hint: hint, RetryAfter: retry})
		var env Envelope
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("invalid JSON %q: %v", b, err)
		}
		// Codes are ours and ASCII, but the encoder must still write any
		// string as valid JSON: invalid UTF-8 comes back as U+FFFD, as
		// encoding/json writes it.
		want := code
		if !utf8.ValidString(code) {
			b, _ := json.Marshal(code)
			_ = json.Unmarshal(b, &want)
		}
		if env.OK || env.Code != want {
			t.Fatalf("round trip lost fields: %+v", env)
		}
		if retry > 0 && env.RetryAfter != retry {
			t.Fatalf("retry_after %d, want %d", env.RetryAfter, retry)
		}
	})
}

func TestKeyProduct(t *testing.T) {
	cases := map[string]Product{"dt_abc": ProductB2B, "trend_x": ProductTrending, "xg_": ProductTweetAlerts}
	for k, want := range cases {
		if got, ok := KeyProduct(k); !ok || got != want {
			t.Errorf("KeyProduct(%q) = %q %v", k, got, ok)
		}
	}
	for _, k := range []string{"", "_x", "dtabc", "zz_abc", "DT_abc"} {
		if _, ok := KeyProduct(k); ok {
			t.Errorf("KeyProduct(%q) accepted", k)
		}
	}
}
