package browser

// The browser: one headless Chromium for the package, started by the first
// test that needs it and closed by TestMain; each test gets a browser
// context of its own (its own cookies and storage), like a fresh profile.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/chromedp/chromedp"
)

var chrome struct {
	once   sync.Once
	ctx    context.Context // the browser's (its first tab)
	stop   func()
	dir    string // the user-data-dir, removed by closeBrowser
	err    error
	output strings.Builder // Chromium's stderr, for a start that fails
}

// TestMain closes the browser after the tests, then checks for leaked
// goroutines (chromedp's end with the browser).
func TestMain(m *testing.M) {
	testkit.VerifyTestMain(m, closeBrowser)
}

func closeBrowser() {
	if chrome.stop != nil {
		chrome.stop()
		_ = os.RemoveAll(chrome.dir)
	}
}

// chromiumPath finds Chromium: ALERTD_TEST_CHROMIUM, then PATH; when there
// is none it runs scripts/testchromium.sh (as make test does), which installs
// Debian's package.
func chromiumPath(t *testing.T) string {
	if p := os.Getenv("ALERTD_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	script := filepath.Join("..", "..", "scripts", "testchromium.sh")
	out, err := exec.Command("bash", script).Output()
	if err != nil {
		t.Fatalf("no Chromium and %s failed: %v", script, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// browserContext returns a new isolated browser context (its own cookies)
// in the package's browser, closed when t ends.
func browserContext(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser tests")
	}
	chrome.once.Do(func() { startBrowser(t) })
	if chrome.err != nil {
		t.Fatalf("start Chromium: %v\n%s", chrome.err, testkit.Tail(chrome.output.String(), 3000))
	}
	ctx, cancel := chromedp.NewContext(chrome.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	return ctx
}

// startBrowser starts Chromium headless with the flags that keep it off the
// network here (no background networking, component updates or sync, no
// first-run tasks) in a fresh profile directory.
func startBrowser(t *testing.T) {
	dir, err := os.MkdirTemp("", "alertd-chromium-")
	if err != nil {
		chrome.err = err
		return
	}
	chrome.dir = dir
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.CombinedOutput(&lockedWriter{b: &chrome.output}),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	chrome.ctx = bctx
	chrome.stop = func() { bcancel(); acancel() }
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		chrome.err = fmt.Errorf("%w (Chromium at %s)", err, chromiumPath(t))
	}
}

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() < 1<<20 {
		w.b.Write(p)
	}
	return len(p), nil
}
