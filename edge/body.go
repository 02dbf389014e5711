package edge

import (
	"bytes"
	"fmt"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// parseError is a body the server cannot read: spec 1 answers these in plain
// text (400 invalid JSON, 413 too large, 415 wrong type, 422 missing field).
type parseError struct {
	status int
	msg    string
}

func (e *parseError) Error() string { return e.msg }

func errMissingField(name string) *parseError {
	return &parseError{422, fmt.Sprintf("unprocessable entity: body has no %q field", name)}
}

// isJSONType accepts application/json with optional parameters (charset).
func isJSONType(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return bytes.EqualFold(bytes.TrimSpace(ct), []byte(contentJSON))
}

// readJSON decodes the request body of a public endpoint into v.
func readJSON(ctx *fasthttp.RequestCtx, v any) *parseError {
	body := ctx.PostBody()
	if len(body) > protocol.MaxBodyBytes {
		return &parseError{413, fmt.Sprintf("request body too large: limit is %d bytes", protocol.MaxBodyBytes)}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return &parseError{400, "bad request: missing JSON body"}
	}
	if !isJSONType(ctx.Request.Header.ContentType()) {
		return &parseError{415, "unsupported media type: send Content-Type: application/json"}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &parseError{400, "bad request: invalid JSON body"}
	}
	return nil
}

// fields decodes a JSON object body into its raw members, so handlers can
// tell an absent field from a null one.
func fields(ctx *fasthttp.RequestCtx) (map[string]json.RawMessage, *parseError) {
	var m map[string]json.RawMessage
	if err := readJSON(ctx, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, &parseError{400, "bad request: body must be a JSON object"}
	}
	return m, nil
}

// isNull reports whether a raw member is JSON null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
