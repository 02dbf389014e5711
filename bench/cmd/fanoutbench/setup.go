//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// workload is the shape of issue 3: handles, accounts with their targets,
// sessions per account.
type workload struct {
	handles     int // H: handles known to the directory
	accounts    int // A: dt enterprise accounts (one key each)
	perAccount  int // S: sessions per account in the fan-out phase
	targets     int // T: targets per account
	watchers    int // W = A*T/H*S: sessions each post reaches
	idleExtra   int // extra sessions of the idle-memory phase
	handleNames []string
	userIDs     []string
	keys        []string // per account
}

// newWorkload arranges sessions over handles so that every handle is on
// exactly watchers/perAccount accounts' lists: account a watches the T
// consecutive handles from (a*T mod H), cyclically.
func newWorkload(handles, sessions, watchers, perAccount, idleTotal int) (*workload, error) {
	if handles < 1 || sessions < 1 || watchers < 1 || perAccount < 1 || perAccount > 5 {
		return nil, fmt.Errorf("need -handles, -sessions, -watchers >= 1 and 1 <= -per-account <= 5")
	}
	if sessions%perAccount != 0 {
		return nil, fmt.Errorf("-sessions (%d) must be a multiple of -per-account (%d)", sessions, perAccount)
	}
	a := sessions / perAccount
	if watchers%perAccount != 0 || (watchers/perAccount)*handles%a != 0 {
		return nil, fmt.Errorf("-watchers/-per-account × -handles must be a multiple of the %d accounts", a)
	}
	t := watchers / perAccount * handles / a
	if t < 1 || t > handles || t > 1000 {
		return nil, fmt.Errorf("%d targets per account: must be 1 to min(handles, 1000)", t)
	}
	extra := max(idleTotal-sessions, 0)
	if sessions+extra > a*5 {
		return nil, fmt.Errorf("%d idle sessions need more than 5 sockets per account", sessions+extra)
	}
	w := &workload{handles: handles, accounts: a, perAccount: perAccount, targets: t, watchers: watchers, idleExtra: extra}
	for i := range handles {
		w.handleNames = append(w.handleNames, fmt.Sprintf("fb_h%05d", i))
		w.userIDs = append(w.userIDs, fmt.Sprintf("%d", 1700000000000000000+int64(i)))
	}
	return w, nil
}

// accountHandles are the handles account a watches.
func (w *workload) accountHandles(a int) []string {
	out := make([]string, w.targets)
	for j := range w.targets {
		out[j] = w.handleNames[(a*w.targets+j)%w.handles]
	}
	return out
}

// admin talks to the admin and ingest APIs and to /v1/dt.
type admin struct {
	base  string
	token string
	hc    *http.Client
}

func newAdmin(base, token string, conns int) *admin {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, IdleConnTimeout: time.Minute}
	return &admin{base: base, token: token, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// do sends one request and decodes the envelope's data into out (if not nil).
func (a *admin) do(ctx context.Context, method, path, bearer, ctype string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out != nil {
		var env struct {
			OK   bool            `json:"ok"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil || !env.OK {
			return resp.StatusCode, fmt.Errorf("%s %s: not an ok envelope: %.200s", method, path, b)
		}
		if err := json.Unmarshal(env.Data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// ingest posts NDJSON lines and checks that every line was accepted.
func (a *admin) ingest(ctx context.Context, body []byte) error {
	var res struct {
		Accepted int               `json:"accepted"`
		Rejected []json.RawMessage `json:"rejected"`
	}
	if _, err := a.do(ctx, "POST", "/ingest/v1/observations", a.token, "application/x-ndjson", body, &res); err != nil {
		return err
	}
	if len(res.Rejected) > 0 {
		return fmt.Errorf("ingest rejected %d lines, first: %s", len(res.Rejected), res.Rejected[0])
	}
	return nil
}

// setupUsers ingests one user observation per handle, so that targets
// resolve at once.
func setupUsers(ctx context.Context, a *admin, w *workload) error {
	var body bytes.Buffer
	for i, h := range w.handleNames {
		fmt.Fprintf(&body, `{"kind":"user","id":%q,"handle":%q,"name":"Bench %d","bio":"fan-out bench account","avatar":"https://pbs.example.com/%s.jpg","banner_url":null,"location":null,"website":null,"followers":%d,"following":100,"verified":false,"verification_type":null,"pinned_post":[],"categories":["coin"],"suspended":false}`+"\n",
			w.userIDs[i], h, i, h, 1000+i)
	}
	return a.ingest(ctx, body.Bytes())
}

// waitUsers polls until the directory knows the last handle (ingest is
// asynchronous).
func waitUsers(ctx context.Context, a *admin, w *workload, key string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := w.handleNames[len(w.handleNames)-1]
	for {
		code, _ := a.do(ctx, "GET", "/social/user/"+last, key, "", nil, nil)
		if code == 200 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("user %s not in the directory after %v (last status %d)", last, timeout, code)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// parallel runs f(i) for i in [0, n) on conc goroutines and returns the first
// error.
func parallel(ctx context.Context, n, conc int, f func(ctx context.Context, i int) error) error {
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
				if err := f(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// setupKeys issues one dt enterprise key per account (max_handles 1000).
func setupKeys(ctx context.Context, a *admin, w *workload, conc int) error {
	w.keys = make([]string, w.accounts)
	body := []byte(`{"product":"dt","plan":"enterprise","max_handles":1000}`)
	return parallel(ctx, w.accounts, conc, func(ctx context.Context, i int) error {
		var out struct {
			Key string `json:"key"`
		}
		if _, err := a.do(ctx, "POST", "/admin/v1/keys", a.token, "application/json", body, &out); err != nil {
			return err
		}
		if out.Key == "" {
			return fmt.Errorf("POST /admin/v1/keys: no key in the answer")
		}
		w.keys[i] = out.Key
		return nil
	})
}

// setupTargets adds every account's targets through POST /v1/dt/targets;
// progress is called now and then with the number added.
func setupTargets(ctx context.Context, a *admin, w *workload, conc int, progress func(done, total int)) error {
	total := w.accounts * w.targets
	var done atomic.Int64
	return parallel(ctx, total, conc, func(ctx context.Context, i int) error {
		acct, j := i%w.accounts, i/w.accounts // spread consecutive requests over accounts
		h := w.handleNames[(acct*w.targets+j)%w.handles]
		var out struct {
			SocialUserID *string `json:"social_user_id"`
		}
		if _, err := a.do(ctx, "POST", "/v1/dt/targets", w.keys[acct], "application/json", []byte(`{"handle":"`+h+`"}`), &out); err != nil {
			return err
		}
		if out.SocialUserID == nil {
			return fmt.Errorf("target %s of account %d did not resolve", h, acct)
		}
		if n := done.Add(1); progress != nil && n%50000 == 0 {
			progress(int(n), total)
		}
		return nil
	})
}
