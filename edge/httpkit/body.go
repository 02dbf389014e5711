package httpkit

import (
	"bytes"
	"fmt"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// ParseError is a body the server cannot read: spec 1 answers these in
// plain text (400 invalid JSON, 413 too large, 415 wrong type, 422 missing
// field).
type ParseError struct {
	Status int
	Msg    string
}

func (e *ParseError) Error() string { return e.Msg }

// Write answers the request with the plain-text failure.
func (e *ParseError) Write(ctx *fasthttp.RequestCtx) { WritePlain(ctx, e.Status, e.Msg) }

// MissingField is the 422 of a body without a required member.
func MissingField(name string) *ParseError {
	return &ParseError{422, fmt.Sprintf("unprocessable entity: body has no %q field", name)}
}

// isJSONType accepts application/json with optional parameters (charset).
func isJSONType(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return bytes.EqualFold(bytes.TrimSpace(ct), []byte(ContentJSON))
}

// ReadJSON decodes the request body of a public endpoint into v: at most
// protocol.MaxBodyBytes (the server itself reads up to the ingest limit),
// not empty, sent as application/json.
func ReadJSON(ctx *fasthttp.RequestCtx, v any) *ParseError {
	body := ctx.PostBody()
	if len(body) > protocol.MaxBodyBytes {
		return &ParseError{413, fmt.Sprintf("request body too large: limit is %d bytes", protocol.MaxBodyBytes)}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return &ParseError{400, "bad request: missing JSON body"}
	}
	if !isJSONType(ctx.Request.Header.ContentType()) {
		return &ParseError{415, "unsupported media type: send Content-Type: application/json"}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &ParseError{400, "bad request: invalid JSON body"}
	}
	return nil
}

// Fields decodes a JSON object body into its raw members, so handlers can
// tell an absent member from a null one.
func Fields(ctx *fasthttp.RequestCtx) (map[string]json.RawMessage, *ParseError) {
	var m map[string]json.RawMessage
	if err := ReadJSON(ctx, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, &ParseError{400, "bad request: body must be a JSON object"}
	}
	return m, nil
}

// IsNull reports whether a raw member is JSON null.
func IsNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// BodyLimit is the largest body the server reads for a request with header
// h, decided from the header alone (the server's HeaderReceived): a
// declared Content-Length above it is refused with 413 before a byte of
// the body is read or allocated. The ingest and admin APIs take up to
// protocol.MaxIngestBodyBytes, and only with the admin bearer; every other
// route protocol.MaxBodyBytes.
func (k *Kit) BodyLimit(h *fasthttp.RequestHeader) int {
	uri := h.RequestURI()
	if (bytes.HasPrefix(uri, []byte("/ingest/")) || bytes.HasPrefix(uri, []byte("/admin/"))) && k.admin.okHeader(h) {
		return protocol.MaxIngestBodyBytes
	}
	return protocol.MaxBodyBytes
}
