package protocol

import (
	"errors"
	"strings"
	"testing"
)

// FuzzDecodeLogin feeds arbitrary LOGIN bytes: DecodeLogin never panics,
// every error is a *LoginError with a DISCONNECT code, an accepted login has
// a non-empty trimmed key, and its filter answers Allows for any metadata.
func FuzzDecodeLogin(f *testing.F) {
	for _, s := range []string{
		`{"op":2,"d":"dt_abc"}`,
		`{"op":2.0,"d":{"api_key":"k","onlyCA":true,"onlyTicker":true,"types":["Update Bio","retweet"],"categories":["Perp Coins"]}}`,
		`{"op":2,"d":{"apiKey":"k","types":["All"],"categories":["all"]}}`,
		`{"op":"2","d":"k"}`,
		`{"op":2,"d":""}`,
		`{"op":2,"d":{"api_key":5}}`,
		`{"op":2,"d":{"api_key":"k","types":[null,"tweet"]}}`,
		`{"op":2e0,"d":"\ud800"}`,
		`{"op":2,"d":{"api_key":"k","categories":["\u0000"]}}`,
		`[]`, `null`, ``, `{`, `{"op":2,"d":{"api_key":"k"`,
	} {
		f.Add([]byte(s))
	}
	ci := NewCategoryInterner()
	ci.Set([]string{"founders", "coin"})
	metas := []EventMeta{
		{Type: TypeTweet, HasCA: true, HasTicker: true, Categories: ci.Set([]string{"coin"})},
		{Type: TypeUpdateBio},
		{Type: TypeNone},
		{Type: 255},
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeLogin(b, ci)
		if err != nil {
			var le *LoginError
			if !errors.As(err, &le) {
				t.Fatalf("error %T %v is not a *LoginError", err, err)
			}
			if _, ok := DisconnectReason(le.Code); !ok || le.Code != CodeLoginInvalid && le.Code != CodeKeyMissing {
				t.Fatalf("unexpected code %q", le.Code)
			}
			if l.Key != "" {
				t.Fatalf("rejected login carries key %q", l.Key)
			}
			return
		}
		if l.Key == "" || strings.TrimSpace(l.Key) != l.Key {
			t.Fatalf("accepted login with key %q from %q", l.Key, b)
		}
		for _, m := range metas {
			_ = l.Filter.Allows(m)
		}
		if l.Filter.Passthrough() {
			for _, m := range metas {
				if !l.Filter.Allows(m) {
					t.Fatalf("passthrough filter refused %+v", m)
				}
			}
		}
	})
}
