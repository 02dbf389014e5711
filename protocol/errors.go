package protocol

import "fmt"

// Stable machine codes of spec 1 "Errors" and spec 2 "Errors".
const (
	CodeKeyMissing     = "key_missing"
	CodeKeyInQuery     = "key_in_query"
	CodeKeyMalformed   = "key_malformed"
	CodeKeyUnknown     = "key_unknown"
	CodeKeyExpired     = "key_expired"
	CodeKeyDeactivated = "key_deactivated"
	CodeKeyBlocked     = "key_blocked"
	CodeIPBlocked      = "ip_blocked"

	CodeHandleLimitReached = "handle_limit_reached"
	CodeRateLimited        = "rate_limited"
	CodeDailyLimitReached  = "daily_limit_reached"

	CodeBadRequest         = "bad_request"
	CodeUnauthorized       = "unauthorized"
	CodeForbidden          = "forbidden"
	CodeNotFound           = "not_found"
	CodeConflict           = "conflict"
	CodeServerError        = "server_error"
	CodeServiceUnavailable = "service_unavailable"
)

// statusCodes maps every status-derived code to its HTTP status.
var statusCodes = map[int]string{
	400: CodeBadRequest,
	401: CodeUnauthorized,
	403: CodeForbidden,
	404: CodeNotFound,
	409: CodeConflict,
	429: CodeRateLimited,
	500: CodeServerError,
	503: CodeServiceUnavailable,
}

// StatusCode returns the status-derived code for an HTTP status (spec 1:
// Tweet Alerts and the product APIs use only these).
func StatusCode(status int) string {
	if c, ok := statusCodes[status]; ok {
		return c
	}
	if status >= 500 {
		return CodeServerError
	}
	return CodeBadRequest
}

// APIError is a failure in the envelope's shape. It is the one error type
// that handlers return to the edge; anything else becomes a 500.
type APIError struct {
	Status     int
	Code       string
	Message    string
	Hint       string
	RetryAfter int // seconds; 0 means absent
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// WithHint returns a copy of e carrying hint.
func (e *APIError) WithHint(hint string) *APIError {
	c := *e
	c.Hint = hint
	return &c
}

// NewError builds an APIError with an explicit code.
func NewError(status int, code, message string) *APIError {
	return &APIError{Status: status, Code: code, Message: message}
}

// Errorf builds an APIError whose code is derived from the status.
func Errorf(status int, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: StatusCode(status), Message: fmt.Sprintf(format, args...)}
}

// Common errors.
func BadRequest(msg string) *APIError { return NewError(400, CodeBadRequest, msg) }
func NotFound(msg string) *APIError   { return NewError(404, CodeNotFound, msg) }
func Forbidden(msg string) *APIError  { return NewError(403, CodeForbidden, msg) }
func Conflict(msg string) *APIError   { return NewError(409, CodeConflict, msg) }
func Internal() *APIError {
	return &APIError{Status: 500, Code: CodeServerError, Message: "internal error", RetryAfter: 30}
}
func Unavailable(msg string) *APIError {
	return &APIError{Status: 503, Code: CodeServiceUnavailable, Message: msg, RetryAfter: 30}
}
func RateLimited(retryAfter int) *APIError {
	return &APIError{Status: 429, Code: CodeRateLimited, Message: "too many requests", RetryAfter: retryAfter}
}
