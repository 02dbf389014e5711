package xapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	json "github.com/goccy/go-json"
)

// callTimeout bounds one REST call (the stream has no such bound).
const callTimeout = 30 * time.Second

// maxBody caps what is read of one REST answer (a page of 1,000 users is
// well under 1 MiB).
const maxBody = 8 << 20

// client calls the REST endpoints with the app's bearer token, under the
// rate limiter. It holds no lock across a call.
type client struct {
	base  string // e.g. https://api.x.com, no trailing slash
	token string
	http  *http.Client
	lim   *limiter
	stats *Stats
}

// apiError is a non-2xx answer.
type apiError struct {
	Status  int
	Problem apiProblem // title, detail, type; zero when the body was not a problem
}

func (e *apiError) Error() string {
	p := e.Problem
	switch {
	case p.Detail != "":
		return fmt.Sprintf("x api: HTTP %d: %s", e.Status, p.Detail)
	case p.Title != "":
		return fmt.Sprintf("x api: HTTP %d: %s", e.Status, p.Title)
	}
	return fmt.Sprintf("x api: HTTP %d", e.Status)
}

// newRequest builds an authorised request of path (with its query).
func (c *client) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("User-Agent", "alertd")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// call waits for endpoint's budget, sends the request and decodes a 2xx
// JSON answer into out. Other answers are *apiError.
func (c *client) call(ctx context.Context, endpoint, method, path string, body []byte, out any) error {
	if err := c.lim.wait(ctx, endpoint); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout) // the shared client has none: the stream must not
	defer cancel()
	req, err := c.newRequest(ctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.stats.HTTPErrors.Add(1)
		return err
	}
	defer resp.Body.Close()
	c.lim.update(endpoint, resp.StatusCode, resp.Header)
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		c.stats.HTTPErrors.Add(1)
		return err
	}
	if resp.StatusCode/100 != 2 {
		c.stats.HTTPErrors.Add(1)
		return errorOf(resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("x api: %s %s: %w", method, strings.SplitN(path, "?", 2)[0], err)
	}
	return nil
}

// errorOf reads a problem body if there is one.
func errorOf(status int, body []byte) *apiError {
	e := &apiError{Status: status}
	var p apiProblem
	if json.Unmarshal(body, &p) == nil {
		e.Problem = p
	}
	return e
}
