package telegram

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// errOddKey refuses a Bot API answer with an object key outside
// [a-z0-9_]. Every key the Bot API sends is lowercase snake_case, and the
// JSON library under telego (grbit/go-json) matches keys case-insensitively:
// a callback_query whose "message" is spelled "messAge" skips telego's
// own choice of message type and decodes into a nil interface, leaving a
// corrupt value that crashes the process when read (found by
// FuzzDecodeUpdate). Refusing such an answer costs a retry, not the engine.
var errOddKey = errors.New("bot api answer has a JSON key outside [a-z0-9_]")

// checkKeys returns errOddKey when an object key anywhere in b is not
// lowercase snake_case; b that is not JSON is left to the decoder.
func checkKeys(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	type frame struct{ object, wantKey bool }
	var stack []frame
	for {
		tok, err := d.Token()
		if err != nil {
			return nil // the end, or not JSON: the decoder says so
		}
		top := len(stack) - 1
		if delim, ok := tok.(json.Delim); ok {
			switch delim {
			case '{', '[':
				stack = append(stack, frame{object: delim == '{', wantKey: delim == '{'})
			default:
				stack = stack[:top]
				if top > 0 && stack[top-1].object {
					stack[top-1].wantKey = true
				}
			}
			continue
		}
		if top < 0 || !stack[top].object {
			continue
		}
		if stack[top].wantKey {
			if !snakeCase(tok.(string)) {
				return errOddKey
			}
			stack[top].wantKey = false
		} else {
			stack[top].wantKey = true
		}
	}
}

func snakeCase(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// keyCheck is the HTTP transport of the Bot API client: it reads each
// answer and refuses one with an odd key (checkKeys) before telego decodes
// it.
type keyCheck struct{ next http.RoundTripper }

func (k keyCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := k.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if err := checkKeys(b); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}
