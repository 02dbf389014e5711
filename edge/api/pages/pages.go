// Package pages serves the web pages (CONTRACT.md section 5): the customer
// dashboard at GET /, the operator console at GET /admin/, and their assets
// under /assets/, all embedded in the binary (package web). It owns the
// headers that keep the pages to themselves: a Content-Security-Policy with
// no inline script and no other host, except the platform's images (any
// https URL a post carries) and, only when a Telegram bot is configured, the
// Telegram login widget's script. The pages read the public API (/v1) and
// the admin API (/admin/v1); this package holds no state but the parsed
// assets, built once by Mount.
package pages

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/web"
	"github.com/valyala/fasthttp"
)

// Deps are what the pages need to know of the server.
type Deps struct {
	// TelegramBotID is the numeric id of the bot that verifies Telegram
	// sign-ins (the part of its token before ':'); empty hides the
	// Telegram button and keeps telegram.org out of the policy.
	TelegramBotID string
}

// Telegram login widget: the script is the only one from another host, and
// only when a bot is configured; its sign-in runs in a popup that posts the
// signed fields back to the opener.
const (
	telegramScript = "https://telegram.org/js/telegram-widget.js?22"
	telegramOrigin = "https://telegram.org"
	telegramOAuth  = "https://oauth.telegram.org"
)

// Routes are GET (and HEAD) / and /admin/, and GET /assets/{path:*} (a
// catch-all: the path under web/, e.g. dashboard/main.js). It panics when the embedded assets are broken, which a test catches before
// any release.
func Routes(d Deps) []httpkit.Route {
	s := newSite(web.FS(), d)
	var out []httpkit.Route
	for _, m := range []string{fasthttp.MethodGet, fasthttp.MethodHead} {
		out = append(out, httpkit.Route{Method: m, Path: "/", Handler: s.page(s.dashboard)},
			httpkit.Route{Method: m, Path: "/admin/", Handler: s.page(s.console)})
	}
	return append(out, httpkit.GET("/assets/{path:*}", s.asset))
}

// site is the parsed assets.
type site struct {
	dashboard, console []byte
	csp                string
	assets             map[string]asset
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

func newSite(fsys fs.FS, d Deps) *site {
	s := &site{assets: map[string]asset{}, csp: policy(d.TelegramBotID != "")}
	data := map[string]any{"TelegramBotID": d.TelegramBotID, "TelegramScript": telegramScript}
	s.dashboard = render(fsys, "dashboard/index.html", data)
	s.console = render(fsys, "console/index.html", data)
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		s.assets[p] = asset{body: b, contentType: contentType(p), etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		panic("pages: embedded assets: " + err.Error())
	}
	return s
}

func render(fsys fs.FS, name string, data any) []byte {
	t, err := template.ParseFS(fsys, name)
	if err != nil {
		panic("pages: " + err.Error())
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		panic("pages: " + name + ": " + err.Error())
	}
	return b.Bytes()
}

// policy is the Content-Security-Policy of both pages. Scripts and styles
// come from this server only (files, never inline); images also from any
// https URL, since posts and profiles carry the platform's image URLs;
// connections (fetch, WebSockets) go to this server only.
func policy(telegram bool) string {
	script, frame := "'self'", "'none'"
	if telegram {
		script += " " + telegramOrigin
		frame = telegramOAuth
	}
	return "default-src 'none'; script-src " + script + "; style-src 'self'; img-src 'self' data: https:; " +
		"connect-src 'self'; frame-src " + frame + "; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}

func (s *site) page(body []byte) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		s.secure(ctx)
		ctx.Response.Header.Set("Cache-Control", "no-cache")
		ctx.SetContentType("text/html; charset=utf-8")
		ctx.SetBody(body)
	}
}

// secure sets the headers every page and asset carries.
func (s *site) secure(ctx *fasthttp.RequestCtx) {
	h := &ctx.Response.Header
	h.Set("Content-Security-Policy", s.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	// The Telegram sign-in popup talks back to its opener.
	h.Set("Cross-Origin-Opener-Policy", "same-origin-allow-popups")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
}

// asset serves one embedded file; browsers revalidate with its ETag, so a
// new binary's assets are picked up at once and unchanged ones cost a 304.
// The router hands over the catch-all's value as the client wrote it, so
// it is unescaped here: the OpenAPI document describes the route as
// /assets/{path}, one parameter, which a client built from it sends with
// its slashes as %2F; browsers send them as they are. Both are served.
func (s *site) asset(ctx *fasthttp.RequestCtx) {
	raw, _ := ctx.UserValue("path").(string)
	p, err := url.PathUnescape(raw)
	a, ok := s.assets[path.Clean(p)]
	if err != nil || !ok || strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
		ctx.SetStatusCode(fasthttp.StatusNotFound)
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBodyString("not found\n")
		return
	}
	s.secure(ctx)
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.Response.Header.Set("ETag", a.etag)
	if string(ctx.Request.Header.Peek("If-None-Match")) == a.etag {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.SetContentType(a.contentType)
	ctx.SetBody(a.body)
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// BotID is the bot id in a Telegram bot token ("123456:ABC..."): public,
// unlike the token, and all the login widget needs. "" when there is none.
func BotID(token string) string {
	id, _, ok := strings.Cut(token, ":")
	if !ok || id == "" || strings.Trim(id, "0123456789") != "" {
		return ""
	}
	return id
}
