package tweetalerts

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

// externalToken was made by an independent HS256 implementation (Python's
// hmac and base64) with key "k"*32.
const externalToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhY2NfMSIsInByZCI6InhnIiwidmlhIjoiYXBpa2V5IiwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE4MDAwMDAwMDB9.-zf1yhNKzHR1sG3SVUB_ewmMKrcTWtpazsjCojoG4B4"

func TestSessionsVerify(t *testing.T) {
	key := bytes.Repeat([]byte("k"), 32)
	now := time.Unix(1750000000, 0)
	s, err := NewSessions(key, time.Hour, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Verify(externalToken)
	if err != nil {
		t.Fatalf("Verify(external token): %v", err)
	}
	if c.Account != "acc_1" || c.Product != protocol.ProductTweetAlerts || c.Via != "apikey" || c.Expires != 1800000000 {
		t.Fatalf("claims %+v", c)
	}
	tok, exp := s.Issue("acc_2", protocol.ProductB2B, "telegram", "")
	if !exp.Equal(now.Add(time.Hour)) {
		t.Errorf("expiry %v", exp)
	}
	if c, err := s.Verify(tok); err != nil || c.Account != "acc_2" || c.Product != protocol.ProductB2B {
		t.Fatalf("round trip: %+v %v", c, err)
	}
	kt, _ := s.Issue("acc_2", protocol.ProductTweetAlerts, "apikey", "kid1")
	if c, err := s.Verify(kt); err != nil || c.KeyID != "kid1" || c.Via != "apikey" {
		t.Fatalf("key-bound round trip: %+v %v", c, err)
	}
	tt, _ := s.IssueTelegram("acc_2", protocol.ProductTweetAlerts, 42, 1749999999123)
	if c, err := s.Verify(tt); err != nil || c.Via != "telegram" || c.TelegramID != 42 || c.LinkGen != 1749999999123 || c.KeyID != "" {
		t.Fatalf("telegram round trip: %+v %v", c, err)
	}
	parts := strings.Split(tok, ".")
	enc := base64.RawURLEncoding.EncodeToString
	other, _ := NewSessions(bytes.Repeat([]byte("x"), 32), time.Hour, func() time.Time { return now })
	otherTok, _ := other.Issue("acc_2", protocol.ProductB2B, "apikey", "k")
	late, _ := NewSessions(key, time.Hour, func() time.Time { return now.Add(2 * time.Hour) })
	early, _ := NewSessions(key, time.Hour, func() time.Time { return now.Add(-time.Hour) })
	for name, c := range map[string]struct {
		s    *Sessions
		tok  string
		want error
	}{
		"other key":       {s, otherTok, ErrTokenSignature},
		"alg none":        {s, enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + ".", ErrTokenMalformed},
		"alg HS512":       {s, enc([]byte(`{"alg":"HS512"}`)) + "." + parts[1] + "." + parts[2], ErrTokenMalformed},
		"payload changed": {s, parts[0] + "." + enc([]byte(`{"sub":"acc_3","prd":"xg","exp":9999999999}`)) + "." + parts[2], ErrTokenSignature},
		"signature cut":   {s, parts[0] + "." + parts[1] + "." + parts[2][:10], ErrTokenSignature},
		"two parts":       {s, parts[0] + "." + parts[1], ErrTokenMalformed},
		"empty":           {s, "", ErrTokenMalformed},
		"garbage":         {s, "a.b.c", ErrTokenMalformed},
		"expired":         {late, tok, ErrTokenExpired},
		"issued later":    {early, tok, ErrTokenMalformed},
	} {
		if _, err := c.s.Verify(c.tok); err != c.want {
			t.Errorf("%s: Verify err = %v, want %v", name, err, c.want)
		}
	}
	if _, err := NewSessions([]byte("short"), 0, nil); err == nil {
		t.Errorf("a short key was accepted")
	}
}

func TestTelegramVerify(t *testing.T) {
	const token = "123456:ABC-DEF"
	// Hash made by an independent implementation (Python's hashlib/hmac).
	const want = "10834a11cb10851319c5c9311a89d13ddefbc08b01384690c05b4383f164f942"
	body := []byte(`{"id":42,"first_name":"Ann","username":"ann","photo_url":null,"auth_date":1700000000,"hash":"` + want + `"}`)
	fields, err := DecodeTelegramFields(body)
	if err != nil {
		t.Fatal(err)
	}
	if got := DataCheckString(fields); got != "auth_date=1700000000\nfirst_name=Ann\nid=42\nusername=ann" {
		t.Fatalf("data-check-string %q", got)
	}
	now := time.Unix(1700000000, 0).Add(time.Hour)
	login, err := VerifyTelegram(fields, token, now, 24*time.Hour)
	if err != nil {
		t.Fatalf("VerifyTelegram: %v", err)
	}
	if login.ID != 42 || login.Username != "ann" || login.FirstName != "Ann" {
		t.Errorf("login %+v", login)
	}
	upper := map[string]string{}
	for k, v := range fields {
		upper[k] = v
	}
	upper["hash"] = strings.ToUpper(want)
	if _, err := VerifyTelegram(upper, token, now, 24*time.Hour); err != nil {
		t.Errorf("an upper-case hash was refused: %v", err)
	}
	mod := func(k, v string) map[string]string {
		m := map[string]string{}
		for kk, vv := range fields {
			m[kk] = vv
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, c := range map[string]struct {
		f     map[string]string
		token string
		now   time.Time
		want  error
	}{
		"wrong token":        {fields, "123456:other", now, ErrTelegramHash},
		"changed name":       {mod("first_name", "Bob"), token, now, ErrTelegramHash},
		"added field":        {mod("last_name", "X"), token, now, ErrTelegramHash},
		"no hash":            {mod("hash", ""), token, now, ErrTelegramFields},
		"no id":              {mod("id", ""), token, now, ErrTelegramFields},
		"older than a day":   {fields, token, time.Unix(1700000000, 0).Add(24*time.Hour + time.Second), ErrTelegramExpired},
		"from the future":    {fields, token, time.Unix(1700000000, 0).Add(-2 * time.Minute), ErrTelegramExpired},
		"no bot token":       {fields, "", now, ErrTelegramFields},
		"hash of other body": {mod("hash", strings.Repeat("0", 64)), token, now, ErrTelegramHash},
	} {
		if _, err := VerifyTelegram(c.f, c.token, c.now, 24*time.Hour); err != c.want {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	for _, bad := range []string{`[]`, `null`, `"x"`, `{"id":{}}`, `{"id":[1]}`, `{`, `{"id":1e}`} {
		if _, err := DecodeTelegramFields([]byte(bad)); err == nil {
			t.Errorf("DecodeTelegramFields(%s) accepted", bad)
		}
	}
}

func FuzzDecodeTelegramFields(f *testing.F) {
	f.Add([]byte(`{"id":42,"first_name":"Ann","auth_date":1700000000,"hash":"ab"}`))
	f.Add([]byte(`{"id":"42","x":true,"y":null,"z":-1.5e3}`))
	f.Add([]byte(`{"id":[1]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fields, err := DecodeTelegramFields(body)
		if err != nil {
			return
		}
		_ = DataCheckString(fields)
		_, _ = VerifyTelegram(fields, "t", time.Unix(1700000000, 0), 24*time.Hour)
	})
}

func FuzzVerifySession(f *testing.F) {
	f.Add(externalToken)
	f.Add("a.b.c")
	f.Add("..")
	s, _ := NewSessions(bytes.Repeat([]byte("k"), 32), time.Hour, func() time.Time { return time.Unix(1750000000, 0) })
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := s.Verify(tok)
		if err == nil && (c.Account == "" || c.Expires <= 1750000000) {
			t.Fatalf("accepted a bad token: %q -> %+v", tok, c)
		}
	})
}
