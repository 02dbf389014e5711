package protocol

import (
	"strconv"

	json "github.com/goccy/go-json"
)

// Envelope is the response body of every valid endpoint under /v1 (spec 1).
type Envelope struct {
	OK         bool   `json:"ok"`
	Data       any    `json:"data,omitempty"`
	Error      string `json:"error,omitempty"`
	Code       string `json:"code,omitempty"`
	Hint       string `json:"hint,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"`
}

// AppendOK appends {"ok":true,"data":<data>} to dst.
func AppendOK(dst []byte, data any) ([]byte, error) {
	dst = append(dst, `{"ok":true,"data":`...)
	b, err := json.Marshal(data)
	if err != nil {
		return dst, err
	}
	dst = append(dst, b...)
	return append(dst, '}'), nil
}

// AppendError appends the failure envelope of e to dst.
func AppendError(dst []byte, e *APIError) []byte {
	dst = append(dst, `{"ok":false,"error":`...)
	dst = appendJSONString(dst, e.Message)
	dst = append(dst, `,"code":`...)
	dst = appendJSONString(dst, e.Code)
	if e.Hint != "" {
		dst = append(dst, `,"hint":`...)
		dst = appendJSONString(dst, e.Hint)
	}
	if e.RetryAfter > 0 {
		dst = append(dst, `,"retry_after":`...)
		dst = strconv.AppendInt(dst, int64(e.RetryAfter), 10)
	}
	return append(dst, '}')
}

func appendJSONString(dst []byte, s string) []byte { return AppendJSONString(dst, s) }
