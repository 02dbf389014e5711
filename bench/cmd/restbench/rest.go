package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// issueKey asks the admin API for a key of product on plan.
func issueKey(s *server, product, plan string) (string, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(s.Base + "/admin/v1/keys")
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+s.Token)
	req.Header.SetContentType("application/json")
	body, _ := json.Marshal(map[string]string{"product": product, "plan": plan})
	req.SetBody(body)
	if err := fasthttp.DoTimeout(req, resp, 10*time.Second); err != nil {
		return "", fmt.Errorf("POST /admin/v1/keys %s: %w", body, err)
	}
	if resp.StatusCode() != 201 {
		return "", fmt.Errorf("POST /admin/v1/keys %s: HTTP %d: %.300s", body, resp.StatusCode(), resp.Body())
	}
	var ans struct {
		OK   bool `json:"ok"`
		Data struct {
			Key string `json:"key"`
		} `json:"data"`
	}
	if err := json.Unmarshal(resp.Body(), &ans); err != nil || !ans.OK || ans.Data.Key == "" {
		return "", fmt.Errorf("POST /admin/v1/keys %s: unexpected answer %.300s", body, resp.Body())
	}
	return ans.Data.Key, nil
}

// restRun is the outcome of one timed GET load.
type restRun struct {
	path         string
	conns        int
	elapsed      time.Duration
	requests     int64
	status       map[int]int64
	errors       int64
	errSamples   []string
	lat          latencies // every request
	lat200       latencies // 200 answers only
	cpu          time.Duration
	clientCPU    time.Duration
	rssBefore    int64
	rssAfter     int64
	hwmAfter     int64
	rate         float64 // all answers per second
	okRate       float64 // 200 answers per second
	perCPU       float64 // answers per server CPU-second
	bodyBytes    int64
	firstBadBody string
}

// runREST issues GET path with the bearer key from conns goroutines, each on
// its own keep-alive connection, for d (closed loop).
func runREST(ctx context.Context, s *server, path, key string, conns int, d time.Duration, measure bool) *restRun {
	hc := &fasthttp.HostClient{
		Addr:                          s.Addr,
		Name:                          "restbench",
		MaxConns:                      conns,
		ReadTimeout:                   10 * time.Second,
		WriteTimeout:                  10 * time.Second,
		MaxIdleConnDuration:           time.Minute,
		NoDefaultUserAgentHeader:      true,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
	}
	defer hc.CloseIdleConnections()
	auth := "Bearer " + key
	uri := s.Base + path

	type worker struct {
		lat, lat200 []time.Duration
		status      map[int]int64
		errors      int64
		errs        []string
		bytes       int64
		badBody     string
	}
	ws := make([]*worker, conns)
	var wg sync.WaitGroup
	before := s.Sample()
	cBefore := alertdproc.SelfCPU()
	start := time.Now()
	deadline := start.Add(d)
	for i := range ws {
		w := &worker{status: map[int]int64{}}
		if measure {
			w.lat = make([]time.Duration, 0, 1<<16)
			w.lat200 = make([]time.Duration, 0, 1<<16)
		}
		ws[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI(uri)
			req.Header.SetMethod(fasthttp.MethodGet)
			req.Header.Set(fasthttp.HeaderAuthorization, auth)
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(deadline) {
					return
				}
				err := hc.Do(req, resp)
				el := time.Since(t0)
				if err != nil {
					w.errors++
					if len(w.errs) < 3 {
						w.errs = append(w.errs, err.Error())
					}
					continue
				}
				code := resp.StatusCode()
				w.status[code]++
				w.bytes += int64(len(resp.Body()))
				if measure {
					w.lat = append(w.lat, el)
					if code == 200 {
						w.lat200 = append(w.lat200, el)
					}
				}
				if code != 200 && code != 429 && w.badBody == "" {
					w.badBody = fmt.Sprintf("HTTP %d: %.300s", code, resp.Body())
				}
			}
		}()
	}
	wg.Wait()
	r := &restRun{path: path, conns: conns, elapsed: time.Since(start), status: map[int]int64{}}
	r.clientCPU = alertdproc.SelfCPU() - cBefore
	after := s.Sample()
	r.cpu = after.CPU - before.CPU
	r.rssBefore, r.rssAfter, r.hwmAfter = before.RSSKB, after.RSSKB, after.HWMKB
	var lat, lat200 [][]time.Duration
	for _, w := range ws {
		for c, n := range w.status {
			r.status[c] += n
			r.requests += n
		}
		r.errors += w.errors
		for _, e := range w.errs {
			r.errSamples = appendSample(r.errSamples, e)
		}
		r.bodyBytes += w.bytes
		if r.firstBadBody == "" {
			r.firstBadBody = w.badBody
		}
		lat, lat200 = append(lat, w.lat), append(lat200, w.lat200)
	}
	r.lat, r.lat200 = merge(lat), merge(lat200)
	r.rate = float64(r.requests) / r.elapsed.Seconds()
	r.okRate = float64(r.status[200]) / r.elapsed.Seconds()
	r.perCPU = perCPU(r.requests, r.cpu)
	return r
}
