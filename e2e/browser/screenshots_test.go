package browser

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestREADMEScreenshots writes the README's pictures of the dashboard and
// the console (dashboard.png, console.png) into ALERTD_SCREENSHOTS, from the
// demo's synthetic upstream (`make run`'s data): the demo account's xg_ key
// is issued again to sign in with it. Skipped unless the variable is set:
//
//	ALERTD_SCREENSHOTS=$PWD/docs go test -run TestREADMEScreenshots ./e2e/browser/
//
// The synthetic posts carry image URLs on example hosts: those requests are
// blocked in the browser and not counted against the pages.
func TestREADMEScreenshots(t *testing.T) {
	dir := os.Getenv("ALERTD_SCREENSHOTS")
	if dir == "" {
		t.Skip("ALERTD_SCREENSHOTS not set")
	}
	s := startServer(t, func(c *engine.Config) { c.DemoRate = 40 })
	if err := s.eng.StartDemo(context.Background()); err != nil {
		t.Fatalf("demo: %v", err)
	}
	key, _ := s.issue(t, map[string]any{"product": "xg", "account_id": "acc_demo", "plan": "ultra"})

	shoot := func(p *page, name string) {
		ctx, cancel := context.WithTimeout(p.ctx, wait)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", path, len(png))
	}
	blocked := func(p *page) {
		p.foreignOK = true
	}
	prepare := func(p *page) {
		ctx, cancel := context.WithTimeout(p.ctx, wait)
		defer cancel()
		if _, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{
			URLPatterns: []*network.BlockPattern{{URLPattern: "*://*.example.com/*", Block: true}}}); err != nil {
			t.Fatalf("block: %v", err)
		}
		if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: 1200, Height: 820, DeviceScaleFactor: 1}); err != nil {
			t.Fatalf("viewport: %v", err)
		}
	}

	d := open(t, s, "/", blocked)
	prepare(d)
	d.signIn(key)
	d.until("the live badge", `document.querySelector('#live').dataset.state === 'live'`)
	d.until("a few live posts", `document.querySelectorAll('#feed-list li.fresh').length >= 6`)
	shoot(d, "dashboard.png")

	c := open(t, s, "/admin/", blocked)
	prepare(c)
	c.fill(`input[name="admin_token"]`, s.admin)
	c.click(`#signin button[type="submit"]`)
	c.until("the console", visible("#app"))
	// A picture, not a check: wait until the chart holds a minute of rates.
	ctx, cancel := context.WithTimeout(c.ctx, 2*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(document.querySelector('#chart polyline') || {points: []}).points.length >= 60`,
		chromedp.WithPollingTimeout(100*time.Second), chromedp.WithPollingInterval(time.Second))); err != nil {
		t.Fatalf("chart: %v", err)
	}
	shoot(c, "console.png")
}
