package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge"
	casearchapi "github.com/alertd/alertd/edge/api/casearch"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// httpResult is one query kind over HTTP.
type httpResult struct {
	name string
	lat  latencies
}

// httpRun serves the loaded index through the real edge server (fasthttp,
// authentication, the quota, the handler) on a loopback port and times
// POST /v1/search from a keep-alive net/http client, one call at a time.
// The quota's windows are shortened to a nanosecond so the client is
// never refused; the work per call is the same.
func httpRun(w *world, o options) ([]httpResult, error) {
	dir, err := os.MkdirTemp("", "searchbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	st, err := embedded.Open(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	reg := account.NewRegistry(st, time.Now)
	limit := 1 << 30
	lim := &limit
	iss, err := reg.Issue(context.Background(), "", protocol.ProductB2B, account.Changes{CASearchDailyLimit: &lim})
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	now := func() time.Time { return w.end.Add(time.Since(t0)) }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := edge.New(edge.Deps{Store: st, Accounts: reg, AdminToken: "bench", Timings: protocol.DefaultTimings(),
		Log: log, Now: now, CASearch: casearchapi.Deps{Service: w.svc, Window: 24 * time.Hour,
			Quota: casearch.NewQuota(casearch.QuotaOptions{Second: time.Nanosecond, Minute: time.Nanosecond})}})
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}()
	url := "http://" + srv.Addr().String() + "/v1/search"
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
	var out []httpResult
	for _, k := range w.kinds() {
		rng := rand.New(rand.NewPCG(7, uint64(len(k.name))))
		var ds []time.Duration
		for i := 0; i < o.httpQueries+o.httpQueries/10; i++ {
			body, _ := json.Marshal(map[string]string{"query": k.next(rng)})
			req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+iss.Key)
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				return nil, err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d := time.Since(start)
			if err != nil {
				return nil, err
			}
			if resp.StatusCode != 200 {
				return nil, fmt.Errorf("POST /v1/search: status %d", resp.StatusCode)
			}
			if i >= o.httpQueries/10 {
				ds = append(ds, d)
			}
		}
		out = append(out, httpResult{name: k.name, lat: summarize(ds)})
	}
	return out, nil
}
