package tweetalerts

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// SessionCookie is the web-dashboard session cookie (spec 1 "Authentication").
const SessionCookie = "xg_session"

// DefaultSessionTTL is the lifetime of a session (the spec does not show
// one; a week, like common dashboard logins).
const DefaultSessionTTL = 7 * 24 * time.Hour

// Claims are what a session token says.
type Claims struct {
	Account string           `json:"sub"`
	Product protocol.Product `json:"prd"`
	Via     string           `json:"via"` // "apikey" or "telegram"
	// KeyID is the base64url SHA-256 of the API key that opened an
	// "apikey" session: revoking that key ends the session.
	KeyID string `json:"kid,omitempty"`
	// TelegramID and LinkGen name the Telegram link that opened a
	// "telegram" session (LinkGen is the link's linked_at, epoch ms):
	// removing the link, or linking the user anew, ends the session.
	TelegramID int64 `json:"tg,omitempty"`
	LinkGen    int64 `json:"lgen,omitempty"`
	Issued     int64 `json:"iat"` // epoch seconds
	Expires    int64 `json:"exp"` // epoch seconds
}

// Sessions issues and checks session tokens: JWTs (RFC 7519) signed with
// HS256 under a server secret.
type Sessions struct {
	key []byte
	ttl time.Duration
	now func() time.Time
}

// NewSessions returns a session issuer keyed with key (at least 32 bytes).
func NewSessions(key []byte, ttl time.Duration, now func() time.Time) (*Sessions, error) {
	if len(key) < 32 {
		return nil, errors.New("session key shorter than 32 bytes")
	}
	if ttl <= 0 {
		ttl = DefaultSessionTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Sessions{key: bytes.Clone(key), ttl: ttl, now: now}, nil
}

// TTL is the lifetime of a new session.
func (s *Sessions) TTL() time.Duration { return s.ttl }

var b64 = base64.RawURLEncoding

// jwtHeader is the one header this issuer writes and accepts.
var jwtHeader = b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// Issue returns a token for account's product subscription and its expiry;
// keyID names the key that signed in ("" for Telegram).
func (s *Sessions) Issue(account string, p protocol.Product, via, keyID string) (string, time.Time) {
	return s.issue(Claims{Account: account, Product: p, Via: via, KeyID: keyID})
}

// IssueTelegram returns a token for a session opened through the Telegram
// link of telegramID made at linkedAt (epoch ms), and its expiry.
func (s *Sessions) IssueTelegram(account string, p protocol.Product, telegramID, linkedAt int64) (string, time.Time) {
	return s.issue(Claims{Account: account, Product: p, Via: "telegram", TelegramID: telegramID, LinkGen: linkedAt})
}

func (s *Sessions) issue(c Claims) (string, time.Time) {
	now := s.now()
	exp := now.Add(s.ttl)
	c.Issued, c.Expires = now.Unix(), exp.Unix()
	payload, _ := json.Marshal(c)
	signing := jwtHeader + "." + b64.EncodeToString(payload)
	return signing + "." + b64.EncodeToString(s.mac(signing)), time.Unix(exp.Unix(), 0).UTC()
}

func (s *Sessions) mac(signing string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(signing))
	return m.Sum(nil)
}

// Session token errors.
var (
	ErrTokenMalformed = errors.New("session token malformed")
	ErrTokenSignature = errors.New("session token signature invalid")
	ErrTokenExpired   = errors.New("session expired")
)

// Verify checks a token: HS256 only (no "none", no other algorithm), a valid
// signature (compared in constant time), not expired, not issued in the
// future.
func (s *Sessions) Verify(token string) (Claims, error) {
	h, rest, ok := cut(token)
	if !ok {
		return Claims{}, ErrTokenMalformed
	}
	p, sig, ok := cut(rest)
	if !ok || len(token) > 4096 {
		return Claims{}, ErrTokenMalformed
	}
	hb, err := b64.DecodeString(h)
	if err != nil {
		return Claims{}, ErrTokenMalformed
	}
	var hdr struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
	}
	if json.Unmarshal(hb, &hdr) != nil || hdr.Alg != "HS256" || (hdr.Typ != "" && hdr.Typ != "JWT") {
		return Claims{}, ErrTokenMalformed
	}
	got, err := b64.DecodeString(sig)
	if err != nil {
		return Claims{}, ErrTokenMalformed
	}
	if !hmac.Equal(got, s.mac(token[:len(h)+1+len(p)])) {
		return Claims{}, ErrTokenSignature
	}
	pb, err := b64.DecodeString(p)
	if err != nil {
		return Claims{}, ErrTokenMalformed
	}
	var c Claims
	if json.Unmarshal(pb, &c) != nil || c.Account == "" || c.Product == "" {
		return Claims{}, ErrTokenMalformed
	}
	now := s.now().Unix()
	if c.Expires <= now {
		return Claims{}, ErrTokenExpired
	}
	if c.Issued > now+60 {
		return Claims{}, ErrTokenMalformed
	}
	return c, nil
}

// cut splits s at its first '.'.
func cut(s string) (before, after string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
