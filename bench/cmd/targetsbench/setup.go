package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
	json "github.com/goccy/go-json"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/valyala/fasthttp"
)

// client talks to one server over keep-alive connections.
type client struct {
	hc    *fasthttp.HostClient
	base  string
	admin string
}

func newClient(srv *alertdproc.Server, conns int) *client {
	return &client{base: srv.Base, admin: srv.Token, hc: &fasthttp.HostClient{
		Addr: srv.Addr, Name: "targetsbench", MaxConns: conns,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, MaxIdleConnDuration: time.Minute,
		NoDefaultUserAgentHeader: true, DisableHeaderNamesNormalizing: true, DisablePathNormalizing: true,
	}}
}

// doer is a fasthttp client: a HostClient (one request at a time per
// connection) or a PipelineClient (several).
type doer interface {
	Do(req *fasthttp.Request, resp *fasthttp.Response) error
}

// pipeline returns a client of one connection that keeps up to depth
// requests in flight on it (HTTP/1.1 pipelining), as a high-volume
// integration would: requests and answers share socket reads and writes on
// both sides. One connection per client, used by depth goroutines, so its
// queue never overflows (a PipelineClient of several connections picks the
// least busy one without a lock and can overfill one).
func (c *client) pipeline(srv *alertdproc.Server, depth int) *fasthttp.PipelineClient {
	return &fasthttp.PipelineClient{
		Addr: srv.Addr, Name: "targetsbench", MaxConns: 1, MaxPendingRequests: depth,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, MaxIdleConnDuration: time.Minute,
		NoDefaultUserAgentHeader: true, DisableHeaderNamesNormalizing: true, DisablePathNormalizing: true,
	}
}

// do sends one request on the client's HostClient and returns the status
// and a copy of the body.
func (c *client) do(method, path, bearer, ctype string, body []byte) (int, []byte, error) {
	return c.doOn(c.hc, method, path, bearer, ctype, body)
}

// doOn is do on another client.
func (c *client) doOn(hc doer, method, path, bearer, ctype string, body []byte) (int, []byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(c.base + path)
	req.Header.SetMethod(method)
	req.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+bearer)
	if ctype != "" {
		req.Header.SetContentType(ctype)
	}
	req.SetBody(body)
	// Do, not DoTimeout (a goroutine and a timer per call): the client's
	// read and write timeouts bound it, and the bench shares the cores.
	if err := hc.Do(req, resp); err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), nil
}

// parallel runs f(i) for i in [0, n) on conc goroutines; the first error
// stops it.
func parallel(ctx context.Context, n, conc int, f func(i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// issueKeys issues one dt enterprise key (max_handles 1000) per account.
func issueKeys(ctx context.Context, c *client, accounts int) ([]string, error) {
	keys := make([]string, accounts)
	body := []byte(`{"product":"dt","plan":"enterprise","max_handles":1000}`)
	err := parallel(ctx, accounts, 8, func(i int) error {
		code, b, err := c.do("POST", "/admin/v1/keys", c.admin, "application/json", body)
		if err != nil {
			return err
		}
		var env struct {
			Data struct {
				Key string `json:"key"`
			} `json:"data"`
		}
		if code != 201 || json.Unmarshal(b, &env) != nil || env.Data.Key == "" {
			return fmt.Errorf("POST /admin/v1/keys: %d %.200s", code, b)
		}
		keys[i] = env.Data.Key
		return nil
	})
	return keys, err
}

// handleName and userID name the directory's handle i.
func handleName(i int) string { return fmt.Sprintf("tb_h%05d", i) }
func userID(i int) string     { return fmt.Sprintf("%d", 1800000000000000000+int64(i)) }

// ingestUsers posts one user observation per handle and waits until the
// directory knows the last one (ingest is asynchronous), so that every add
// resolves at once.
func ingestUsers(ctx context.Context, c *client, handles int, key string) error {
	var body bytes.Buffer
	for i := range handles {
		h := handleName(i)
		fmt.Fprintf(&body, `{"kind":"user","id":%q,"handle":%q,"name":"Bench %d","bio":"targets bench account","avatar":"https://pbs.example.com/%s.jpg","banner_url":null,"location":null,"website":null,"followers":%d,"following":100,"verified":false,"verification_type":null,"pinned_post":[],"categories":["coin"],"suspended":false}`+"\n",
			userID(i), h, i, h, 1000+i)
	}
	code, b, err := c.do("POST", "/ingest/v1/observations", c.admin, "application/x-ndjson", body.Bytes())
	if err != nil {
		return err
	}
	if code != 200 || bytes.Contains(b, []byte(`"rejected":[{`)) {
		return fmt.Errorf("ingest users: %d %.300s", code, b)
	}
	last := handleName(handles - 1)
	deadline := time.Now().Add(60 * time.Second)
	for ctx.Err() == nil {
		if code, _, _ := c.do("GET", "/social/user/"+last, key, "", nil); code == 200 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("user %s not in the directory after 60 s", last)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return ctx.Err()
}

// countTargets adds up the count of every account's GET /v1/dt/targets.
func countTargets(ctx context.Context, c *client, keys []string) (int, error) {
	var total atomic.Int64
	err := parallel(ctx, len(keys), 8, func(i int) error {
		code, b, err := c.do("GET", "/v1/dt/targets", keys[i], "", nil)
		if err != nil {
			return err
		}
		var env struct {
			Data struct {
				Count int `json:"count"`
			} `json:"data"`
		}
		if code != 200 || json.Unmarshal(b, &env) != nil {
			return fmt.Errorf("GET /v1/dt/targets: %d %.200s", code, b)
		}
		total.Add(int64(env.Data.Count))
		return nil
	})
	return int(total.Load()), err
}
