package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// xgSessionCookie asserts the Set-Cookie of a sign-in and returns the token.
func xgSessionCookie(t *testing.T, r resp) string {
	t.Helper()
	var tok string
	for _, c := range r.header.Values("Set-Cookie") {
		if !strings.HasPrefix(c, "xg_session=") {
			continue
		}
		parts := strings.Split(c, ";")
		tok = strings.TrimPrefix(parts[0], "xg_session=")
		attrs := strings.ToLower(c)
		for _, a := range []string{"httponly", "samesite=lax", "path=/", "max-age=604800"} {
			if !strings.Contains(attrs, a) {
				t.Errorf("session cookie lacks %s: %s", a, c)
			}
		}
		if strings.Contains(attrs, "secure") { // Secure only over TLS (testDashboardSession)
			t.Errorf("session cookie over plain HTTP is Secure: %s", c)
		}
	}
	if strings.Count(tok, ".") != 2 {
		t.Fatalf("no JWT session cookie in %v", r.header.Values("Set-Cookie"))
	}
	return tok
}

func (s *server) xgLogin(t *testing.T, key string) string {
	t.Helper()
	r := s.do(t, "POST", "/v1/auth/apikey", hdr{"Content-Type": "application/json"}, `{"api_key":"`+key+`"}`)
	r.wantOK(t, 200)
	return xgSessionCookie(t, r)
}

func xgWithCookie(tok string) hdr { return hdr{"Cookie": "xg_session=" + tok} }

var xgFeedItemKeys = []string{"tweet_id", "handle", "text", "url", "image_url", "image_urls", "is_reply", "is_quote",
	"received_at", "created_at", "original_tweet_id", "possibly_sensitive", "mentions"}

// testXGFeedSameMillisecond: paging /v1/feed never skips or repeats posts
// that share a millisecond, whether a page boundary falls inside such a
// group or one millisecond holds more posts than a page.
func testXGFeedSameMillisecond(t *testing.T, s *server) {
	k := s.xgKey(t, "growth")
	hs := s.xgUsers(t, 2, false)
	s.xgTrack(t, k.key, hs...)
	base := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	want := map[string]bool{}
	post := func(h string, at time.Time) {
		p := postObs(h, "post", "same ms")
		p["created_at"] = at.UnixMilli()
		s.send(t, p)
		want[p["id"].(string)] = true
	}
	post(hs[0], base.Add(time.Second)) // newest, alone
	for i := range 3 {                 // pages of 2 end inside this group
		post(hs[i%2], base)
	}
	for i := range 5 { // more than a page in one millisecond
		post(hs[i%2], base.Add(-time.Second))
	}
	post(hs[1], base.Add(-2*time.Second))
	s.sync(t)
	seen := map[string]int{}
	before := ""
	for page := 0; ; page++ {
		if page > 10 {
			t.Fatalf("more than 10 pages: %v", seen)
		}
		path := "/v1/feed?limit=2"
		if before != "" {
			path += "&before=" + url.QueryEscape(before)
		}
		d := s.do(t, "GET", path, bearer(k.key), nil).wantOK(t, 200)
		for _, raw := range d.array(t, "items") {
			seen[decodeObj(t, raw, "item").str(t, "tweet_id")]++
		}
		if d.isNull("next_before") {
			break
		}
		before = d.str(t, "next_before")
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("post %s seen %d times over the pages", id, seen[id])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("pages hold %d posts, want %d", len(seen), len(want))
	}
}

// testXGSessionsAndFeed: POST /v1/auth/apikey sets the xg_session cookie;
// /v1/feed and /v1/ws accept it; the feed pages newest first with a
// before cursor.
func testXGSessionsAndFeed(t *testing.T, s *server) {
	k := s.xgKey(t, "growth")
	hs := s.xgUsers(t, 3, false)
	s.xgTrack(t, k.key, hs[0], hs[1])
	tok := s.xgLogin(t, k.key)
	s.do(t, "POST", "/v1/auth/apikey", hdr{"Content-Type": "application/json"}, `{"api_key":"xg_`+strings.Repeat("1", 48)+`"}`).
		wantErr(t, 401, "unauthorized")
	s.do(t, "POST", "/v1/auth/apikey", hdr{"Content-Type": "application/json"}, `{}`).wantPlain(t, 422)
	s.do(t, "POST", "/v1/auth/apikey", hdr{"Content-Type": "application/json"}, ``).wantPlain(t, 400)

	base := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	var ids []string
	for i, h := range []string{hs[0], hs[1], hs[0]} {
		p := postObs(h, "post", fmt.Sprint("feed ", i))
		p["created_at"] = base.Add(time.Duration(i) * time.Second).UnixMilli()
		s.send(t, p)
		ids = append(ids, p["id"].(string))
	}
	s.send(t, postObs(hs[2], "post", "untracked"))
	var items []json.RawMessage
	s.afterSync(t, "3 posts in the feed", func() (bool, string) {
		r := s.do(t, "GET", "/v1/feed", xgWithCookie(tok), nil)
		if r.status != 200 {
			return false, r.String()
		}
		d := r.wantOK(t, 200)
		items = d.array(t, "items")
		return len(items) == 3, r.String()
	})
	var got []string
	for _, raw := range items {
		it := decodeObj(t, raw, "feed item")
		it.wantKeys(t, "feed item", xgFeedItemKeys...)
		got = append(got, it.str(t, "tweet_id"))
	}
	if want := []string{ids[2], ids[1], ids[0]}; !slices.Equal(got, want) {
		t.Errorf("feed %v, want newest first %v", got, want)
	}
	d := s.do(t, "GET", "/v1/feed?limit=2", xgWithCookie(tok), nil).wantOK(t, 200)
	d.wantKeys(t, "feed", "items", "count", "next_before")
	if d.num(t, "count") != 2 {
		t.Fatalf("page 1 %v", d)
	}
	next := d.str(t, "next_before")
	d = s.do(t, "GET", "/v1/feed?limit=2&before="+url.QueryEscape(next), xgWithCookie(tok), nil).wantOK(t, 200)
	if it := d.array(t, "items"); len(it) != 1 || decodeObj(t, it[0], "item").str(t, "tweet_id") != ids[0] || !d.isNull("next_before") {
		t.Errorf("page 2 %v", d)
	}
	s.do(t, "GET", "/v1/feed", bearer(k.key), nil).wantOK(t, 200) // a key works too
	s.do(t, "GET", "/v1/feed", nil, nil).wantErr(t, 401, "unauthorized")
	s.do(t, "GET", "/v1/feed", xgWithCookie(tok[:len(tok)-3]+"abc"), nil).wantErr(t, 401, "unauthorized")
	s.do(t, "GET", "/v1/feed?limit=0", xgWithCookie(tok), nil).wantErr(t, 400, "bad_request")
	s.do(t, "GET", "/v1/feed?before=yesterday", xgWithCookie(tok), nil).wantErr(t, 400, "bad_request")

	// The WebSocket takes the cookie too, from the server's own pages or an
	// allowed origin only (no cross-site WebSocket hijacking): a browser
	// always sends Origin on the handshake.
	withOrigin := func(o string) http.Header {
		h := xgCookieHeader(tok)
		if o != "" {
			h.Set("Origin", o)
		}
		return h
	}
	s.xgRefused(t, "", withOrigin("http://evil.example"), 403)
	s.xgRefused(t, "", withOrigin(""), 403)
	s.xgRefused(t, "", withOrigin("null"), 403)
	if w, r, err := xgDial(t, s.wsURL("/v1/ws"), withOrigin(xgAllowedOrigin), false); err != nil {
		t.Fatalf("cookie socket from an allowed origin: %v %s", err, testkit.ResponseText(r))
	} else {
		w.Close()
	}
	// A key in the URL is not a browser's ambient credential: any origin.
	if w, r, err := xgDial(t, s.wsURL("/v1/ws?api_key="+k.key), http.Header{"Origin": {"http://evil.example"}}, false); err != nil {
		t.Fatalf("key socket from another origin: %v %s", err, testkit.ResponseText(r))
	} else {
		w.Close()
	}
	w, r, err := xgDial(t, s.wsURL("/v1/ws"), withOrigin(s.base), false)
	if err != nil {
		t.Fatalf("cookie socket: %v %s", err, testkit.ResponseText(r))
	}
	w.SendText(t, `{"type":"subscribe","handles":["`+hs[0]+`"]}`)
	if ack := w.xgFrame(t, "ack"); ack.num(t, "active") != 1 {
		t.Errorf("cookie socket ack %v", ack)
	}
	s.xgRefused(t, "", xgCookieHeader("x.y.z"), 401)
	freeTok := s.xgLogin(t, s.xgKey(t, "free").key)
	free := xgCookieHeader(freeTok)
	free.Set("Origin", s.base)
	s.xgRefused(t, "", free, 401)
}

// xgTelegramFields are signed widget fields for user id at authDate.
func xgTelegramFields(id int64, authDate time.Time, token string) map[string]any {
	f := map[string]any{"id": id, "first_name": "Ann", "last_name": "Lee", "username": "ann_e2e",
		"photo_url": "https://t.me/i/userpic/ann.jpg", "auth_date": authDate.Unix()}
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%s=%v", k, f[k]))
	}
	secret := sha256.Sum256([]byte(token))
	m := hmac.New(sha256.New, secret[:])
	m.Write([]byte(strings.Join(lines, "\n")))
	f["hash"] = hex.EncodeToString(m.Sum(nil))
	return f
}

// testXGTelegram: a Telegram sign-in is verified (hash, auth_date within a
// day); an unlinked Telegram user is refused unless it signs in while
// holding an API-key session, which links it to that account.
func testXGTelegram(t *testing.T, s *server) {
	k := s.xgKey(t, "starter")
	id := 1_000_000 + rand.Int64N(1_000_000_000)
	body := func(f map[string]any) []byte { b, _ := json.Marshal(f); return b }
	ct := hdr{"Content-Type": "application/json"}
	good := xgTelegramFields(id, time.Now().Add(-time.Minute), xgBotToken)
	s.do(t, "POST", "/v1/auth/telegram", ct, body(good)).wantErr(t, 401, "unauthorized")

	tok := s.xgLogin(t, k.key)
	h := xgWithCookie(tok)
	h["Content-Type"] = "application/json"
	// Linking with the cookie must come from the server's own pages.
	s.do(t, "POST", "/v1/auth/telegram", h, body(good)).wantErr(t, 403, "forbidden")
	h["Sec-Fetch-Site"] = "same-origin"
	// Linking needs a fresh sign-in (10 minutes), not just one within a day.
	s.do(t, "POST", "/v1/auth/telegram", h, body(xgTelegramFields(id, time.Now().Add(-time.Hour), xgBotToken))).
		wantErr(t, 401, "unauthorized")
	r := s.do(t, "POST", "/v1/auth/telegram", h, body(good))
	d := r.wantOK(t, 200)
	if !d.boolean(t, "telegram_linked") {
		t.Errorf("link answer %v", d)
	}
	xgSessionCookie(t, r)

	r = s.do(t, "POST", "/v1/auth/telegram", ct, body(xgTelegramFields(id, time.Now(), xgBotToken)))
	r.wantOK(t, 200)
	tgTok := xgSessionCookie(t, r)
	s.do(t, "GET", "/v1/feed", xgWithCookie(tgTok), nil).wantOK(t, 200)

	bad := xgTelegramFields(id, time.Now(), xgBotToken)
	bad["first_name"] = "Mallory"
	s.do(t, "POST", "/v1/auth/telegram", ct, body(bad)).wantErr(t, 401, "unauthorized")
	s.do(t, "POST", "/v1/auth/telegram", ct, body(xgTelegramFields(id, time.Now(), "other:token"))).wantErr(t, 401, "unauthorized")
	s.do(t, "POST", "/v1/auth/telegram", ct, body(xgTelegramFields(id, time.Now().Add(-25*time.Hour), xgBotToken))).wantErr(t, 401, "unauthorized")
	noHash := xgTelegramFields(id, time.Now(), xgBotToken)
	delete(noHash, "hash")
	s.do(t, "POST", "/v1/auth/telegram", ct, body(noHash)).wantErr(t, 400, "bad_request")
	s.do(t, "POST", "/v1/auth/telegram", ct, `{"id":[1]}`).wantErr(t, 400, "bad_request")
	s.do(t, "POST", "/v1/auth/telegram", ct, `{`).wantPlain(t, 400)

	// The link is listed, and removed (with the cookie from the dashboard's
	// origin only, or with the key); the Telegram user can no longer sign in.
	ls := s.do(t, "GET", "/v1/auth/telegram/links", bearer(k.key), nil).wantOK(t, 200)
	ls.wantKeys(t, "links", "links", "count")
	links := ls.array(t, "links")
	if len(links) != 1 || ls.num(t, "count") != 1 {
		t.Fatalf("links %v", ls)
	}
	l := decodeObj(t, links[0], "link")
	l.wantKeys(t, "link", "telegram_id", "linked_at")
	if l.num(t, "telegram_id") != float64(id) {
		t.Errorf("link %v, want telegram_id %d", l, id)
	}
	s.do(t, "GET", "/v1/auth/telegram/links", xgWithCookie(tok), nil).wantOK(t, 200)
	path := fmt.Sprintf("/v1/auth/telegram/links/%d", id)
	s.do(t, "DELETE", path, xgWithCookie(tok), nil).wantErr(t, 403, "forbidden")
	other := s.xgKey(t, "starter")
	s.do(t, "DELETE", path, bearer(other.key), nil).wantErr(t, 404, "not_found")
	s.do(t, "DELETE", path, bearer(k.key), nil).wantOK(t, 200)
	s.do(t, "DELETE", path, bearer(k.key), nil).wantErr(t, 404, "not_found")
	s.do(t, "POST", "/v1/auth/telegram", ct, body(xgTelegramFields(id, time.Now(), xgBotToken))).wantErr(t, 401, "unauthorized")
	if ls := s.do(t, "GET", "/v1/auth/telegram/links", bearer(k.key), nil).wantOK(t, 200); ls.num(t, "count") != 0 {
		t.Errorf("links after removal %v", ls)
	}
	// The sessions opened through the removed link end with it, not with
	// their cookie's lifetime: REST, the session probe and the socket.
	s.do(t, "GET", "/v1/feed", xgWithCookie(tgTok), nil).wantErr(t, 401, "unauthorized")
	s.do(t, "GET", "/v1/auth/session", xgWithCookie(tgTok), nil).wantErr(t, 401, "unauthorized")
	if ws, r, _ := testkit.DialWS(t, s.wsURL("/v1/ws"), testkit.DialOptions{Header: http.Header{
		"Cookie": {"xg_session=" + tgTok}, "Origin": {s.base}}}); ws != nil || r == nil || r.StatusCode != 401 {
		t.Errorf("/v1/ws with the session of a removed Telegram link: %v, want 401", r)
	}
	// Linking the user again does not bring the old sessions back.
	r = s.do(t, "POST", "/v1/auth/telegram", h, body(xgTelegramFields(id, time.Now(), xgBotToken)))
	if !r.wantOK(t, 200).boolean(t, "telegram_linked") {
		t.Errorf("relink answer %s", r)
	}
	s.do(t, "GET", "/v1/feed", xgWithCookie(xgSessionCookie(t, r)), nil).wantOK(t, 200)
	s.do(t, "GET", "/v1/feed", xgWithCookie(tgTok), nil).wantErr(t, 401, "unauthorized")
	s.do(t, "DELETE", path, bearer(k.key), nil).wantOK(t, 200)

	// A subscription has at most 10 linked Telegram users: the 11th link is
	// refused with 403 until one is removed.
	ids := make([]int64, 11)
	for i := range ids {
		ids[i] = 2_000_000_000 + rand.Int64N(1_000_000_000)
		want := 200
		if i == 10 {
			want = 403
		}
		r := s.do(t, "POST", "/v1/auth/telegram", h, body(xgTelegramFields(ids[i], time.Now(), xgBotToken)))
		if r.status != want {
			t.Fatalf("link %d: %s, want %d", i+1, r, want)
		}
	}
	s.do(t, "DELETE", fmt.Sprintf("/v1/auth/telegram/links/%d", ids[0]), bearer(k.key), nil).wantOK(t, 200)
	s.do(t, "POST", "/v1/auth/telegram", h, body(xgTelegramFields(ids[10], time.Now(), xgBotToken))).wantOK(t, 200)
}
