// Package openapitest checks recorded HTTP exchanges against alertd's OpenAPI
// document (api/openapi.yaml), so that tests catch the server and the
// document drifting apart. It is for tests only.
//
// It uses github.com/pb33f/libopenapi-validator. Compared with
// github.com/getkin/kin-openapi's openapi3filter (v0.153) on this document:
// both read OpenAPI 3.1 and JSON Schema 2020-12; libopenapi-validator
// validates a response in about 20 µs and 176 allocations against kin's
// 0.5 ms and 4,000 (kin compiles the 2020-12 schema again on every call),
// names each failure by JSONPath and schema keyword
// ($.data.targets[0] /properties/.../required: missing property
// 'display_name'), refuses undocumented status codes by default, and checks
// the document itself against the OAS 3.1 meta-schema. Its one gap: a $ref
// nested inside keywords written next to another $ref is not resolved, so
// the document narrows shared schemas with allOf instead.
//
// In a test harness, either wrap the client, so that every answer is
// checked:
//
//	client := &http.Client{Transport: openapitest.Transport(t, nil)}
//
// or check an answer already read: openapitest.Check(t, resp, body), or
// Validator.Response for a recorded exchange (WebSocket upgrades included).
// A Validator is safe for concurrent use.
package openapitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/alertd/alertd/api"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/content"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
)

// Validator checks requests and responses against the document.
type Validator struct {
	// mu serialises calls: the library's caches are not documented as
	// safe for concurrent use, and a call costs microseconds.
	mu sync.Mutex
	v  validator.Validator
}

// New builds a validator from the embedded document (about half a second:
// prefer Shared in tests).
func New() (*Validator, error) {
	doc, err := libopenapi.NewDocument(api.YAML())
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	// Security is the server's to enforce and the tests' to probe: a
	// request without a key is still a request the document describes.
	// Formats (date-time above all) are asserted, not just annotations.
	opts := []config.Option{config.WithoutSecurityValidation(), config.WithFormatAssertions()}
	// OpenAPI 3.1 has no sequential media types: the document describes an
	// NDJSON ingest body as text, so it is decoded as text.
	text := content.DecoderFunc(func(in *content.DecodeInput) (any, error) {
		b, err := io.ReadAll(in.Body)
		return string(b), err
	})
	for _, mt := range ndjsonTypes {
		opts = append(opts, config.WithBodyDecoder(mt, text))
	}
	v, errs := validator.NewValidator(doc, opts...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("openapi validator: %w", errors.Join(errs...))
	}
	return &Validator{v: v}, nil
}

// ndjsonTypes are the media types ingest reads as NDJSON.
var ndjsonTypes = []string{"application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"}

var shared = sync.OnceValues(New)

// Shared is one Validator per test process.
func Shared() (*Validator, error) { return shared() }

// Document checks the document against the OpenAPI 3.1 meta-schema.
func (v *Validator) Document() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if ok, errs := v.v.ValidateDocument(); !ok {
		return describe("document", errs)
	}
	return nil
}

// Request checks a request and its body against the operation it calls.
func (v *Validator) Request(req *http.Request, body []byte) error {
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	v.mu.Lock()
	ok, errs := v.v.ValidateHttpRequest(r)
	v.mu.Unlock()
	if !ok {
		return describe(req.Method+" "+req.URL.Path, errs)
	}
	return nil
}

// Response checks the answer (status, headers, body) the server gave to
// req. A request that matches no documented operation must have got the
// documented 404 of an unknown route.
func (v *Validator) Response(req *http.Request, status int, header http.Header, body []byte) error {
	resp := &http.Response{StatusCode: status, Header: header, Request: req,
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
	v.mu.Lock()
	ok, errs := v.v.ValidateHttpResponse(req, resp)
	v.mu.Unlock()
	what := fmt.Sprintf("%s %s -> %d", req.Method, req.URL.Path, status)
	switch {
	case ok:
		return nil
	case unrouted(errs):
		if err := checkUnrouted(req.Method, req.URL.Path, status, header, body); err != nil {
			return fmt.Errorf("%s: no documented operation, and %w", what, err)
		}
		return nil
	}
	return describe(what, errs)
}

// unrouted reports whether the only complaint is that no documented
// operation matches the request.
func unrouted(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationType != helpers.PathValidation {
			return false
		}
	}
	return len(errs) > 0
}

// checkUnrouted applies the document's rule for unknown routes (and known
// paths called with a method they do not serve): 404, as the envelope under
// /v1/, as {status, msg} under /social/, as plain text elsewhere; OPTIONS on
// a served path is 200 with Allow.
func checkUnrouted(method, path string, status int, header http.Header, body []byte) error {
	if method == http.MethodOptions && status == http.StatusOK {
		if header.Get("Allow") == "" || len(body) > 0 {
			return fmt.Errorf("the OPTIONS answer has no Allow header, or a body")
		}
		return nil
	}
	if status != http.StatusNotFound {
		return fmt.Errorf("the answer is %d, not 404", status)
	}
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	switch {
	case strings.HasPrefix(path, "/v1/"):
		var e struct {
			OK   *bool  `json:"ok"`
			Code string `json:"code"`
		}
		if mt != "application/json" || json.Unmarshal(body, &e) != nil || e.OK == nil || *e.OK || e.Code != "not_found" {
			return fmt.Errorf("the 404 is not the envelope with code not_found: %q", body)
		}
	case strings.HasPrefix(path, "/social/"):
		var e struct {
			Status string `json:"status"`
			Msg    string `json:"msg"`
		}
		if mt != "application/json" || json.Unmarshal(body, &e) != nil || e.Status != "error" {
			return fmt.Errorf("the 404 is not {status: error, msg}: %q", body)
		}
	default:
		if mt != "text/plain" {
			return fmt.Errorf("the 404 is %q, not plain text", mt)
		}
	}
	return nil
}

// describe renders the library's findings one per line: the message, and
// each schema failure by JSONPath and schema keyword.
func describe(what string, errs []*verrors.ValidationError) error {
	var b strings.Builder
	b.WriteString(what)
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  %s", e.Message)
		if e.Reason != "" && e.Reason != e.Message {
			fmt.Fprintf(&b, ": %s", e.Reason)
		}
		for _, s := range e.SchemaValidationErrors {
			path := s.FieldPath
			if path == "" {
				path = "$"
			}
			fmt.Fprintf(&b, "\n    %s %s: %s", path, s.KeywordLocation, s.Reason)
		}
	}
	return errors.New(b.String())
}

// Check validates resp (whose body the caller has read into body) and fails
// t when it does not match the document.
func Check(t testing.TB, resp *http.Response, body []byte) {
	t.Helper()
	v, err := Shared()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Response(resp.Request, resp.StatusCode, resp.Header, body); err != nil {
		t.Errorf("openapi: %v", err)
	}
}

// Transport wraps base (nil: http.DefaultTransport) so that every response
// an http.Client receives is checked against the document; a mismatch fails
// t. The body is read in full and handed on unchanged. Use it only while t
// runs.
func Transport(t testing.TB, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{t: t, base: base}
}

type transport struct {
	t    testing.TB
	base http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tr.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	v, verr := Shared()
	if verr == nil {
		verr = v.Response(req, resp.StatusCode, resp.Header, body)
	}
	if verr != nil {
		tr.t.Errorf("openapi: %v", verr)
	}
	return resp, nil
}
