package httpkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// PathValue copies a router path value (fasthttp reuses the request's bytes).
func PathValue(ctx *fasthttp.RequestCtx, name string) string {
	switch v := ctx.UserValue(name).(type) {
	case string:
		return strings.Clone(v)
	case []byte:
		return string(v)
	}
	return ""
}

// PathHandle is the {handle} path value, normalized; "" when not a handle.
func PathHandle(ctx *fasthttp.RequestCtx) string {
	h := protocol.NormalizeHandle(PathValue(ctx, "handle"))
	if !protocol.ValidHandle(h) {
		return ""
	}
	return h
}

// Page reads the limit and offset query of a paged endpoint: limit defaults
// to def and is capped at max; both must be integers, limit at least 1 and
// offset at least 0.
func Page(ctx *fasthttp.RequestCtx, def, max int) (limit, offset int, err error) {
	limit, err = QueryInt(ctx, "limit", def, 1)
	if err != nil {
		return 0, 0, err
	}
	if offset, err = QueryInt(ctx, "offset", 0, 0); err != nil {
		return 0, 0, err
	}
	return min(limit, max), offset, nil
}

// QueryInt reads an integer query argument of at least least; absent is def.
func QueryInt(ctx *fasthttp.RequestCtx, name string, def, least int) (int, error) {
	raw := ctx.QueryArgs().Peek(name)
	if len(raw) == 0 {
		return def, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < least {
		return 0, protocol.BadRequest(fmt.Sprintf("%s must be an integer of at least %d", name, least))
	}
	return n, nil
}

// HandleBody reads the `handle` member of a JSON object body: 422 when
// absent, 400 when it is not a platform handle. The handle comes back
// normalized, with the body's other members.
func HandleBody(ctx *fasthttp.RequestCtx) (string, map[string]json.RawMessage, error) {
	m, perr := Fields(ctx)
	if perr != nil {
		return "", nil, perr
	}
	raw, ok := m["handle"]
	if !ok {
		return "", nil, MissingField("handle")
	}
	var h string
	if json.Unmarshal(raw, &h) != nil {
		return "", nil, protocol.BadRequest("handle must be a string")
	}
	h = protocol.NormalizeHandle(h)
	if h == "" {
		return "", nil, protocol.BadRequest("handle is required")
	}
	if !protocol.ValidHandle(h) {
		return "", nil, protocol.BadRequest("handle must be 1 to 50 letters, digits or underscores")
	}
	return h, m, nil
}

// RequiredString reads a string member that must be present: absent is the
// plain-text 422 of a missing field, a non-string 400 "<name> must be a
// string" (null reads as "", which the caller's own checks judge).
func RequiredString(m map[string]json.RawMessage, name string) (string, error) {
	raw, ok := m[name]
	if !ok {
		return "", MissingField(name)
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", protocol.BadRequest(name + " must be a string")
	}
	return v, nil
}

// IntMember reads an integer member within [lo, hi] (hi < 0: no upper
// bound); absent is ok=false.
func IntMember(m map[string]json.RawMessage, name string, lo, hi int64) (v int64, ok bool, err error) {
	raw, present := m[name]
	if !present {
		return 0, false, nil
	}
	if IsNull(raw) || json.Unmarshal(raw, &v) != nil {
		return 0, false, protocol.BadRequest(name + " must be an integer")
	}
	if v < lo || (hi >= 0 && v > hi) {
		if hi < 0 {
			return 0, false, protocol.BadRequest(fmt.Sprintf("%s must be %d or more", name, lo))
		}
		return 0, false, protocol.BadRequest(fmt.Sprintf("%s must be between %d and %d", name, lo, hi))
	}
	return v, true, nil
}

// StoreContext bounds one handler's store calls. It is not the fasthttp
// RequestCtx: that one's Done channel is not safe to watch from the
// database driver's goroutines.
func StoreContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// NewSecret is a webhook signing secret: 32 random bytes in hex (64
// characters). crypto/rand does not fail on the platforms Go supports; if
// it ever did, no secret is better than a guessable one.
func NewSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}
