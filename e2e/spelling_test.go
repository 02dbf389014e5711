package e2e

// Payloads keep the platform's spelling of a handle (issue 10, item 8):
// author.handle, userName, a rename's prev and updated; matching, routing
// and targets go by the lowercase key.

import (
	"maps"
	"strings"
	"testing"

	"github.com/alertd/alertd/engine"
)

// TestHandleSpelling runs the spelling suite against one server per store.
func TestHandleSpelling(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: func(c *engine.Config) {
			tweetAlertsConfig(c)
			realtimeMain(c)
		}})
		subtests{
			{"PostPayloads", testSpellingPostPayloads},
			{"Rename", testSpellingRename},
		}.run(t, s)
	})
}

// spelled is handle h (lowercase) as a platform could spell it.
func spelled(h string) string { return strings.ToUpper(h[:3]) + h[3:] }

// testSpellingPostPayloads: a post by `RT_spell...` reaches targets added as
// `rt_spell...` and as `RT_SPELL...`, and the B2B socket event, the Tweet
// Alerts webhook and socket alert, /v1/feed and /social/user keep the
// platform's spelling; task_info.handle is the key.
func testSpellingPostPayloads(t *testing.T, s *server) {
	h := newHandle("spl")
	sp := spelled(h)
	u := userMap(newUserID(), sp)
	s.send(t, u)
	probe := s.xgProbe(t)
	if got := s.userNow(t, probe, h).str(t, "userName"); got != sp {
		t.Errorf("/social/user userName %q, want the platform's %q", got, sp)
	}

	lower := s.newDT(t, "pro", nil, h)
	upper := s.newDT(t, "pro", nil, strings.ToUpper(h)) // a target added in another case
	// The target list shows the handle as the customer typed it.
	for key, want := range map[string]string{lower.key: h, upper.key: strings.ToUpper(h)} {
		l := s.do(t, "GET", "/v1/dt/targets", bearer(key), nil).wantOK(t, 200)
		if got := decodeObj(t, l.array(t, "targets")[0], "target").str(t, "screen_name"); got != want {
			t.Errorf("target list screen_name %q, want %q as typed", got, want)
		}
	}
	s.do(t, "POST", "/v1/dt/targets", hdr{"Authorization": "Bearer " + upper.key, "Content-Type": "application/json"},
		`{"handle":"@`+sp+`"}`).wantErr(t, 409, "conflict")
	wl, _ := s.rtLogin(t, lower.key)
	wu, _ := s.rtLogin(t, upper.key)

	k := s.xgKey(t, "pro")
	s.xgTrack(t, k.key, h)
	rcv := newCXReceiver(t, func(int) int { return 200 })
	s.xgCreateWebhook(t, k.key, rcv.srv.URL+"/spell", nil)
	ws := s.xgWS(t, k.key)
	ws.SendText(t, `{"type":"subscribe","handles":["`+h+`"]}`)
	ws.xgFrame(t, "ack")

	p := postObs(sp, "post", "gm from the spelled handle")
	p["author"].(jsonMap)["handle"] = "@" + sp
	s.send(t, p)
	id := p["id"].(string)
	for name, w := range map[string]*wsClient{"target added lowercase": wl, "target added uppercase": wu} {
		e := w.nextEvent(t)
		if e.name != "social.post.new" || e.id != "evt_"+id {
			t.Fatalf("%s: %s, want the post", name, e)
		}
		if got := e.data(t).object(t, "author").str(t, "handle"); got != sp {
			t.Errorf("%s: data.author.handle %q, want the platform's %q", name, got, sp)
		}
		if got := e.handle(t); got != h {
			t.Errorf("%s: task_info.handle %q, want the key %q", name, got, h)
		}
	}

	d := decodeObj(t, rcv.waitHits(t, id, 1)[0].body, "webhook body").object(t, "data")
	if d.str(t, "author") != sp || d.str(t, "url") != "https://x.com/"+sp+"/status/"+id {
		t.Errorf("webhook data author %q url %q, want %q", d.str(t, "author"), d.str(t, "url"), sp)
	}
	if a := ws.xgFrame(t, "alert"); a.str(t, "handle") != sp {
		t.Errorf("/v1/ws alert handle %q, want %q", a.str(t, "handle"), sp)
	}
	s.sync(t)
	feed := s.do(t, "GET", "/v1/feed", bearer(k.key), nil).wantOK(t, 200)
	items := feed.array(t, "items")
	if len(items) != 1 {
		t.Fatalf("feed %v, want the one post", feed)
	}
	if got := decodeObj(t, items[0], "feed item").str(t, "handle"); got != sp {
		t.Errorf("/v1/feed handle %q, want %q", got, sp)
	}
	// A followed account's handle too (social.following.new on the
	// enterprise socket; the first list is the baseline).
	ent := s.newDT(t, "enterprise", nil, h)
	we, _ := s.rtLogin(t, ent.key)
	fid, fh := newUserID(), newHandle("splf")
	s.send(t, followingObs(sp, followUser(newUserID(), newHandle("splb"))))
	s.send(t, followingObs(sp, followUser(fid, "@"+spelled(fh))))
	for {
		e := we.nextEvent(t)
		if e.name != "social.following.new" {
			continue // the post, replayed or not
		}
		if got := e.data(t).str(t, "handle"); got != spelled(fh) {
			t.Errorf("social.following.new data.handle %q, want %q", got, spelled(fh))
		}
		break
	}

	// The tracked list keeps the key (spec 1: lowercase).
	if got := s.do(t, "GET", "/v1/accounts/"+sp, bearer(k.key), nil).wantOK(t, 200).str(t, "handle"); got != h {
		t.Errorf("tracked account handle %q, want %q", got, h)
	}
}

// testSpellingRename: a rename's prev and updated are spelled as the
// platform sent them; a change of case alone is no rename.
func testSpellingRename(t *testing.T, s *server) {
	h, h2 := newHandle("spr"), newHandle("spr2")
	pro := s.newDT(t, "pro", nil, h)
	u := userMap(newUserID(), spelled(h))
	s.send(t, u)
	s.userNow(t, pro.key, h)
	w, _ := s.rtLogin(t, pro.key)

	v := maps.Clone(u)
	v["handle"] = spelled(h2)
	s.send(t, v)
	wantProfileEvents(t, w, h2, []profileChange{{"handle", spelled(h), spelled(h2)}})

	// The same account spelled in lowercase: nothing to tell (the post
	// after it is the next event).
	low := maps.Clone(v)
	low["handle"] = h2
	s.send(t, low)
	s.userNow(t, pro.key, h2)
	p := postObs(h2, "post", "after a change of case")
	s.send(t, p)
	if e := w.nextEvent(t); e.name != "social.post.new" || e.id != "evt_"+p["id"].(string) {
		t.Errorf("after a change of case: %s, want the post", e)
	}
}
