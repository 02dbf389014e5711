package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// IngestPath is the ingest endpoint below the engine's base URL.
const IngestPath = "/ingest/v1/observations"

// NDJSONContentType is the media type of an NDJSON ingest body.
const NDJSONContentType = "application/x-ndjson"

// DefaultMaxBody keeps each request below the ingest API's 16 MiB limit.
const DefaultMaxBody = 15 << 20

// HTTPSink posts batches of observations as NDJSON to the ingest API. Use
// NewHTTPSink; the zero value is not usable. Its fields may be changed before
// the first Send. It is safe for concurrent use, but batches sent concurrently
// may be processed in any order.
type HTTPSink struct {
	// URL is the full ingest endpoint, e.g. http://127.0.0.1:8080/ingest/v1/observations.
	URL string
	// Token is the admin token sent as "Authorization: Bearer <Token>".
	Token string
	// Client is reused for every request (keep-alive).
	Client *http.Client
	// MaxBody is the largest request body in bytes; a larger batch is split.
	MaxBody int
	// Retries is how many more times a request is tried when the receiver
	// surely did not process it (429, 502, 503, 504, connection refused).
	Retries int
	// RetryWait is the first wait before a retry; it doubles each time.
	RetryWait time.Duration
	// OnReject, when set, is called for each line the receiver rejected, with
	// its index in the batch given to Send and the receiver's reason.
	OnReject func(line []byte, index int, reason string)

	stats Stats
}

// NewHTTPSink returns a sink posting to baseURL + IngestPath (a baseURL that
// already ends in IngestPath is used as is) with the given admin token.
func NewHTTPSink(baseURL, adminToken string) *HTTPSink {
	u := strings.TrimRight(baseURL, "/")
	if !strings.HasSuffix(u, IngestPath) {
		u += IngestPath
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 32
	tr.MaxIdleConnsPerHost = 8
	tr.IdleConnTimeout = 90 * time.Second
	return &HTTPSink{
		URL:       u,
		Token:     adminToken,
		Client:    &http.Client{Transport: tr, Timeout: 60 * time.Second},
		MaxBody:   DefaultMaxBody,
		Retries:   2,
		RetryWait: 200 * time.Millisecond,
	}
}

// Stats reports the requests made and what the engine accepted and rejected.
func (h *HTTPSink) Stats() Snapshot { return h.stats.Snapshot() }

// Send posts lines, split into requests of at most MaxBody bytes. Rejected
// lines are counted (and passed to OnReject), not returned as an error. An
// error names the HTTP status and the start of the body, or the transport
// failure; IsPermanent tells whether it will happen again.
func (h *HTTPSink) Send(ctx context.Context, lines [][]byte) error {
	maxBody := h.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	var body []byte
	for start := 0; start < len(lines); {
		end, size := start, 0
		for end < len(lines) && (end == start || size+len(lines[end])+1 <= maxBody) {
			size += len(lines[end]) + 1
			end++
		}
		body = joinNDJSON(body[:0], lines[start:end])
		if err := h.post(ctx, body, lines[start:end], start); err != nil {
			h.stats.fail(err)
			return err
		}
		start = end
	}
	return nil
}

// ingestAnswer is the envelope of the ingest API's answer.
type ingestAnswer struct {
	OK   bool `json:"ok"`
	Data struct {
		Accepted int64 `json:"accepted"`
		Rejected []struct {
			Index int    `json:"index"`
			Error string `json:"error"`
		} `json:"rejected"`
	} `json:"data"`
	Error string `json:"error"`
	Code  string `json:"code"`
}

func (h *HTTPSink) post(ctx context.Context, body []byte, lines [][]byte, offset int) error {
	wait := h.RetryWait
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	for attempt := 0; ; attempt++ {
		ans, retryAfter, err := h.once(ctx, body)
		if err == nil {
			h.stats.Requests.Add(1)
			h.stats.Lines.Add(int64(len(lines)))
			h.stats.Accepted.Add(ans.Data.Accepted)
			h.stats.Rejected.Add(int64(len(ans.Data.Rejected)))
			if h.OnReject != nil {
				for _, r := range ans.Data.Rejected {
					var line []byte
					if r.Index >= 0 && r.Index < len(lines) {
						line = lines[r.Index]
					}
					h.OnReject(line, offset+r.Index, r.Error)
				}
			}
			return nil
		}
		if attempt >= h.Retries || !retryable(err) || ctx.Err() != nil {
			return err
		}
		d := wait << attempt
		if retryAfter > d {
			d = min(retryAfter, 5*time.Second)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// once makes one request. retryAfter is the receiver's Retry-After, if any.
func (h *HTTPSink) once(ctx context.Context, body []byte) (ans ingestAnswer, retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return ans, 0, fmt.Errorf("ingest: %w", err)
	}
	req.Header.Set("Content-Type", NDJSONContentType)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+h.Token)
	req.Header.Set("User-Agent", "alertd-upstream/1")
	resp, err := h.Client.Do(req)
	if err != nil {
		return ans, 0, fmt.Errorf("ingest: %w", err)
	}
	defer func() {
		// Drain a little so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
	}()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if s, e := strconv.Atoi(resp.Header.Get("Retry-After")); e == nil && s > 0 {
			retryAfter = time.Duration(s) * time.Second
		}
		return ans, retryAfter, &StatusError{StatusCode: resp.StatusCode, Status: resp.Status, Body: snippet(data)}
	}
	if rerr != nil {
		return ans, 0, fmt.Errorf("ingest: reading answer: %w", rerr)
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return ans, 0, fmt.Errorf("ingest: unexpected answer (HTTP %s): %s", resp.Status, snippet(data))
	}
	if !ans.OK {
		return ans, 0, errors.New("ingest: answer not ok: " + snippet([]byte(ans.Code+" "+ans.Error)))
	}
	return ans, 0, nil
}

// snippet returns the start of a body on one line.
func snippet(b []byte) string {
	const max = 300
	cut := len(b) > max
	if cut {
		b = b[:max]
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
	if cut {
		s += "..."
	}
	return s
}
