package tweetalerts

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// TelegramLogin is a verified Telegram Login Widget sign-in.
type TelegramLogin struct {
	ID        int64
	Username  string
	FirstName string
	AuthDate  time.Time
}

// Telegram login errors.
var (
	ErrTelegramBody    = errors.New("body must be a JSON object of the Telegram login fields")
	ErrTelegramFields  = errors.New("id, auth_date and hash are required")
	ErrTelegramHash    = errors.New("telegram login hash invalid")
	ErrTelegramExpired = errors.New("telegram login too old; sign in again")
)

// DecodeTelegramFields reads the widget's fields from a JSON object body,
// each as the text Telegram signed: strings as they are, numbers as written.
// Null members are left out, as the widget leaves out absent fields; objects
// and arrays are refused.
func DecodeTelegramFields(body []byte) (map[string]string, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil {
		return nil, ErrTelegramBody
	}
	out := make(map[string]string, len(m))
	for k, raw := range m {
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) == 0:
			return nil, ErrTelegramBody
		case raw[0] == '"':
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, ErrTelegramBody
			}
			out[k] = s
		case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
			if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
				return nil, ErrTelegramBody
			}
			out[k] = string(raw)
		case string(raw) == "true" || string(raw) == "false":
			out[k] = string(raw)
		case string(raw) == "null":
		default:
			return nil, ErrTelegramBody
		}
	}
	return out, nil
}

// DataCheckString is Telegram's data-check-string: every field but hash,
// as key=value, sorted by key, joined with newlines.
func DataCheckString(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "hash" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(fields[k])
	}
	return b.String()
}

// TelegramHash is hex(HMAC-SHA256(data-check-string, SHA256(bot token))),
// the hash the widget sends.
func TelegramHash(fields map[string]string, botToken string) string {
	key := sha256.Sum256([]byte(botToken))
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(DataCheckString(fields)))
	return hex.EncodeToString(m.Sum(nil))
}

// VerifyTelegram checks a widget sign-in as Telegram documents it: the hash
// must match (constant-time) and auth_date be at most maxAge old (and not in
// the future beyond a minute of clock skew).
func VerifyTelegram(fields map[string]string, botToken string, now time.Time, maxAge time.Duration) (TelegramLogin, error) {
	hash, idS, dateS := fields["hash"], fields["id"], fields["auth_date"]
	if hash == "" || idS == "" || dateS == "" || botToken == "" {
		return TelegramLogin{}, ErrTelegramFields
	}
	want := TelegramHash(fields, botToken)
	if !hmac.Equal([]byte(want), []byte(strings.ToLower(hash))) {
		return TelegramLogin{}, ErrTelegramHash
	}
	id, err := strconv.ParseInt(idS, 10, 64)
	if err != nil || id <= 0 {
		return TelegramLogin{}, ErrTelegramFields
	}
	date, err := strconv.ParseInt(dateS, 10, 64)
	if err != nil {
		return TelegramLogin{}, ErrTelegramFields
	}
	at := time.Unix(date, 0).UTC()
	if now.Sub(at) > maxAge || at.Sub(now) > time.Minute {
		return TelegramLogin{}, ErrTelegramExpired
	}
	return TelegramLogin{ID: id, Username: fields["username"], FirstName: fields["first_name"], AuthDate: at}, nil
}
