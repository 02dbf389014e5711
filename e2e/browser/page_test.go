package browser

// A page under test: a tab in its own browser context that records every
// JavaScript exception, Content-Security-Policy report and request to
// another host, fails the test on any of them, and saves a screenshot when
// the test failed.

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// wait is how long a page may take to show what the test expects: a -race
// engine on a busy 2-core machine, and the console's 2 s refresh.
const wait = 20 * time.Second

type page struct {
	// foreignOK: requests to other hosts are expected (the demo's synthetic
	// image URLs, blocked before they leave the browser).
	foreignOK bool
	t         *testing.T
	ctx       context.Context
	s         *server
	mu        sync.Mutex
	bad       []string // exceptions, policy violations, foreign requests
	seen      int      // how many of bad were reported already
}

// open starts a tab on s at path (for example "/" or "/admin/").
func open(t *testing.T, s *server, path string, opts ...func(*page)) *page {
	t.Helper()
	p := &page{t: t, ctx: browserContext(t), s: s}
	for _, o := range opts {
		o(p)
	}
	if err := chromedp.Do(p.ctx); err != nil { // creates the tab
		t.Fatalf("open a tab: %v", err)
	}
	if err := chromedp.Listen(p.ctx, p.watch); err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(p.finish)
	p.do(chromedp.Navigate(s.base + path))
	return p
}

// watch runs on chromedp's reader goroutine: record only.
func (p *page) watch(ev any) {
	var problem string
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		problem = "JavaScript exception: " + d.Text
		if d.Exception != nil {
			problem += " " + d.Exception.Description
		}
	case *log.EventEntryAdded:
		// Policy violations and script errors the browser logs itself;
		// refused requests (a 401 the page expects) are "network" entries.
		if src := string(e.Entry.Source); e.Entry.Level == "error" && (src == "security" || src == "javascript" || src == "violation") {
			problem = fmt.Sprintf("browser %s error: %s", src, e.Entry.Text)
		}
	case *network.EventRequestWillBeSent:
		u, err := url.Parse(e.Request.URL)
		if err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ws" || u.Scheme == "wss") && u.Host != p.s.host && !p.foreignOK {
			problem = "request to another host: " + e.Request.URL
		}
	}
	if problem != "" {
		p.mu.Lock()
		p.bad = append(p.bad, problem)
		p.mu.Unlock()
	}
}

// check fails the test on what the page did wrong since the last check.
func (p *page) check() {
	p.t.Helper()
	p.mu.Lock()
	bad := p.bad[p.seen:]
	p.seen = len(p.bad)
	p.mu.Unlock()
	for _, b := range bad {
		p.t.Errorf("page: %s", b)
	}
}

func (p *page) finish() {
	p.check()
	if !p.t.Failed() {
		return
	}
	// Kept after the test (t.TempDir would be removed with it), so the
	// screenshot named in the log can be opened.
	dir := filepath.Join(os.TempDir(), "alertd-browser-failures")
	_ = os.MkdirAll(dir, 0o755)
	name := filepath.Join(dir, regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(p.t.Name(), "_")+".png")
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(name, png, 0o644)
	}
	if err != nil {
		p.t.Logf("no screenshot: %v", err)
		return
	}
	p.t.Logf("screenshot of the page when the test failed: %s", name)
}

// do runs browser actions; a failure ends the test.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
	p.check()
}

// until waits until the JavaScript expression is true; what names it.
func (p *page) until(what, expr string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(wait),
		chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		p.t.Fatalf("%s: not within %v (%v); page text:\n%s", what, wait, err, p.text("body"))
	}
	p.check()
}

// eval returns the value of a JavaScript expression.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// text is the visible text of the first element sel matches ("" if none).
func (p *page) text(sel string) string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
		`(document.querySelector(%q) || {innerText: ""}).innerText`, sel)))
	return v
}

// fill types value into the input sel (after clearing it).
func (p *page) fill(sel, value string) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(e => { e.value = ''; return true })(document.querySelector(%q))`, sel))
	p.do(chromedp.SendKeys(chromedp.CSS(sel), value))
}

func (p *page) click(sel string) {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS(sel)))
}

// visible is a JavaScript expression: sel matches an element that is shown.
func visible(sel string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && !e.closest('[hidden]') && e.getClientRects().length > 0; })()`, sel)
}

// contains is a JavaScript expression: sel's text contains s.
func contains(sel, s string) string {
	return fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText.includes(%q)`, sel, s)
}

// cookies are the browser context's cookies for the server.
func (p *page) cookies() []*network.Cookie {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{p.s.base + "/"}})
	if err != nil {
		p.t.Fatalf("cookies: %v", err)
	}
	return res.Cookies
}

// signIn signs in on the dashboard with key and waits for the app.
func (p *page) signIn(key string) {
	p.t.Helper()
	p.until("the sign-in form", visible(`input[name="api_key"]`))
	p.fill(`input[name="api_key"]`, key)
	p.click(`#signin button[type="submit"]`)
	p.until("the dashboard after sign-in", visible("#app"))
}

// has reports whether the page's text contains s right now.
func (p *page) has(s string) bool { return strings.Contains(p.text("body"), s) }
