package pages

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/alertd/alertd/web"
	"github.com/valyala/fasthttp"
)

// The pages follow their own Content-Security-Policy: no inline script, no
// inline style or event handler attribute, nothing from another host; the
// scripts never build HTML from strings (the server's text is set as text).
func TestAssetsKeepThePolicy(t *testing.T) {
	inlineScript := regexp.MustCompile(`<script(\s[^>]*)?>\s*[^<\s]`)
	styleAttr := regexp.MustCompile(`\sstyle\s*=`)
	handlerAttr := regexp.MustCompile(`\son[a-z]+\s*=\s*"`)
	foreign := regexp.MustCompile(`(src|href)="(https?:)?//`)
	err := fs.WalkDir(web.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(web.FS(), p)
		s := string(b)
		switch {
		case strings.HasSuffix(p, ".html"):
			for name, re := range map[string]*regexp.Regexp{"inline script": inlineScript, "style attribute": styleAttr,
				"event handler attribute": handlerAttr, "another host": foreign} {
				if m := re.FindString(s); m != "" {
					t.Errorf("%s: %s: %q", p, name, m)
				}
			}
		case strings.HasSuffix(p, ".js"):
			for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "localStorage"} {
				if strings.Contains(s, bad) {
					t.Errorf("%s uses %s", p, bad)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every asset a page names is served.
func TestPagesNameServedAssets(t *testing.T) {
	s := newSite(web.FS(), Deps{})
	ref := regexp.MustCompile(`(?:src|href)="/assets/([^"]+)"`)
	for name, body := range map[string][]byte{"dashboard": s.dashboard, "console": s.console} {
		refs := ref.FindAllStringSubmatch(string(body), -1)
		if len(refs) < 3 {
			t.Errorf("%s names %d assets", name, len(refs))
		}
		for _, m := range refs {
			if _, ok := s.assets[m[1]]; !ok {
				t.Errorf("%s names /assets/%s, which is not embedded", name, m[1])
			}
		}
	}
	if !strings.Contains(string(s.dashboard), `name="api_key"`) {
		t.Errorf("the dashboard's sign-in has no input named api_key (CONTRACT.md section 5)")
	}
	if strings.Contains(string(s.dashboard), "alertd-telegram-bot-id") || strings.Contains(string(s.dashboard), "telegram.org") {
		t.Errorf("the Telegram widget is named without a bot")
	}
}

func TestTelegramOnlyWithABot(t *testing.T) {
	with := newSite(web.FS(), Deps{TelegramBotID: "123456"})
	if !strings.Contains(string(with.dashboard), `content="123456"`) || !strings.Contains(with.csp, "https://telegram.org") {
		t.Errorf("bot set: page or policy lacks Telegram: %s", with.csp)
	}
	without := newSite(web.FS(), Deps{})
	if strings.Contains(without.csp, "telegram") {
		t.Errorf("no bot, yet the policy names Telegram: %s", without.csp)
	}
	for _, c := range []struct{ token, id string }{
		{"123456:ABC-def", "123456"}, {"", ""}, {"abc:def", ""}, {":x", ""}, {"123456", ""},
	} {
		if got := BotID(c.token); got != c.id {
			t.Errorf("BotID(%q) = %q, want %q", c.token, got, c.id)
		}
	}
}

func TestAssetHeadersAndRevalidation(t *testing.T) {
	s := newSite(web.FS(), Deps{})
	get := func(path, etag string) *fasthttp.RequestCtx {
		var ctx fasthttp.RequestCtx
		ctx.SetUserValue("path", path)
		if etag != "" {
			ctx.Request.Header.Set("If-None-Match", etag)
		}
		s.asset(&ctx)
		return &ctx
	}
	ctx := get("dashboard/main.js", "")
	if ctx.Response.StatusCode() != 200 || string(ctx.Response.Header.ContentType()) != "text/javascript; charset=utf-8" {
		t.Fatalf("main.js: %d %s", ctx.Response.StatusCode(), ctx.Response.Header.ContentType())
	}
	if string(ctx.Response.Header.Peek("X-Content-Type-Options")) != "nosniff" || len(ctx.Response.Header.Peek("Content-Security-Policy")) == 0 {
		t.Errorf("asset without the security headers")
	}
	etag := string(ctx.Response.Header.Peek("ETag"))
	if ctx := get("dashboard/main.js", etag); ctx.Response.StatusCode() != 304 {
		t.Errorf("revalidation with the ETag: %d, want 304", ctx.Response.StatusCode())
	}
	if ctx := get("dashboard%2Fmain.js", ""); ctx.Response.StatusCode() != 200 || string(ctx.Response.Body()) != string(s.assets["dashboard/main.js"].body) {
		t.Errorf("dashboard%%2Fmain.js (the document's one parameter, escaped): %d, want main.js", ctx.Response.StatusCode())
	}
	for _, p := range []string{"nope.js", "../embed.go", "%2e%2e/embed.go", "dashboard/index.html", "/etc/passwd", "%2Fetc/passwd", "dashboard%zz"} {
		if ctx := get(p, ""); ctx.Response.StatusCode() != 404 {
			t.Errorf("%s: %d, want 404", p, ctx.Response.StatusCode())
		}
	}
}
