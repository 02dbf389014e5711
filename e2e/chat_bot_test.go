package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/alertd/alertd/edge/telegram/telegramfake"
)

// TestChatBot: link, track, alert, every setting, keywords, mute, the
// per-account filters and /apikey rotation, through the bot against the
// fake Bot API, on both stores; the bot acts on the same data as REST.
func TestChatBot(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		calls, ok := fake.Wait(chatWait, func(cs []telegramfake.Call) bool {
			for _, c := range cs {
				if c.Method == "setMyCommands" {
					return true
				}
			}
			return false
		})
		if !ok {
			t.Fatalf("no setMyCommands; calls:\n%s", telegramfake.String(calls))
		}
		for _, c := range calls {
			if c.Method == "setMyCommands" {
				for _, name := range []string{"start", "link", "track", "untrack", "list", "keywords", "mute", "unmute", "settings", "apikey", "help"} {
					if !strings.Contains(c.Str("commands"), `"command":"`+name+`"`) {
						t.Errorf("setMyCommands lacks /%s: %s", name, c.Str("commands"))
					}
				}
			}
		}

		k := s.xgKey(t, "pro")
		hs := s.xgUsers(t, 3, false)
		const user = 7001
		chat := int64(user)
		wantSay(t, fake, chat, user, "/start", "/link")
		wantSay(t, fake, chat, user, "/track "+hs[0], "not linked")
		wantSay(t, fake, chat, user, "/link xg_not_a_key", "not valid")
		wantSay(t, fake, chat, user, "/link "+k.key, "Linked")
		wantSay(t, fake, chat, user, "/track @"+hs[0]+" "+strings.ToUpper(hs[1])+" nosuchuser_zz9", "Now tracking @"+hs[0]+", @"+hs[1])
		wantSay(t, fake, chat, user, "/track "+hs[0], "Already tracked: @"+hs[0])
		wantSay(t, fake, chat, user, "/track bad-handle!", "Not valid handles")
		wantSay(t, fake, chat, user, "/track"+strings.Repeat(" h", 26), "At most 25 handles")
		// Same data as REST, both ways.
		list := s.do(t, "GET", "/v1/accounts", bearer(k.key), nil).wantOK(t, 200)
		if got := fmt.Sprintf("%s", list.array(t, "accounts")); !strings.Contains(got, hs[0]) || !strings.Contains(got, hs[1]) {
			t.Fatalf("REST list after /track: %s", got)
		}
		s.xgTrack(t, k.key, hs[2])
		wantSay(t, fake, chat, user, "/list", "@"+hs[2])
		wantSay(t, fake, chat, user, "/untrack "+hs[2], "Stopped tracking @"+hs[2])
		wantSay(t, fake, chat, user, "/untrack "+hs[2], "You do not track")

		// An alert: the post's URL and text, HTML-escaped; its photo.
		p := s.xgPost(t, hs[0], `gm <b>&friends</b> "hi"`, 0)
		c, _ := alertOf(t, fake, chat, p)
		if txt := telegramfake.Text(c); !strings.Contains(txt, "gm &lt;b&gt;&amp;friends&lt;/b&gt; &quot;hi&quot;") || c.Str("parse_mode") != "HTML" {
			t.Errorf("alert %s: text %q parse_mode %q", c.Method, txt, c.Str("parse_mode"))
		}
		if c.Method != "sendPhoto" || !strings.Contains(c.Str("photo"), "pbs.example.com/m/") {
			t.Errorf("alert of a post with one photo: %s photo=%q", c.Method, c.Str("photo"))
		}

		// notSent posts skip (filtered out), then marker (not filtered):
		// the chat's messages go out in order, so once the marker's alert
		// is there, the skipped post's would be before it.
		notSent := func(what string, skip jsonMap, marker jsonMap) {
			t.Helper()
			_, before := alertOf(t, fake, chat, marker)
			if mentions(before, skip) != 0 {
				t.Errorf("%s: the filtered post was sent", what)
			}
		}
		post := func(h, typ, text string) jsonMap {
			p := postObs(h, typ, text)
			s.send(t, p)
			s.sync(t) // the chat channel has handled it
			return p
		}

		// Keywords (at least one must occur, any case).
		wantSay(t, fake, chat, user, "/keywords "+hs[0]+" moon Lambo", "Keywords of @"+hs[0]+": moon, Lambo")
		notSent("keywords", post(hs[0], "post", "nothing to see"), post(hs[0], "post", "to the MOON"))
		wantSay(t, fake, chat, user, "/keywords "+hs[0], "cleared")

		// Mute.
		wantSay(t, fake, chat, user, "/mute "+hs[1], "muted")
		notSent("mute", post(hs[1], "post", "muted post"), post(hs[0], "post", "after mute"))
		wantSay(t, fake, chat, user, "/unmute "+hs[1], "unmuted")
		alertOf(t, fake, chat, post(hs[1], "post", "unmuted post"))

		// Per-account filters (set by REST, applied in the chat).
		s.do(t, "PATCH", "/v1/accounts/"+hs[0]+"/filters", xgJsonHdr(k.key), `{"exclude_replies":true,"exclude_quotes":true}`).wantOK(t, 200)
		notSent("exclude_replies filter", post(hs[0], "reply", "a reply"), post(hs[0], "post", "marker 1"))
		notSent("exclude_quotes filter", post(hs[0], "quote", "a quote"), post(hs[0], "post", "marker 2"))
		alertOf(t, fake, chat, post(hs[1], "reply", "reply of the other handle"))
		s.do(t, "PATCH", "/v1/accounts/"+hs[0]+"/filters", xgJsonHdr(k.key), `{"exclude_replies":false,"exclude_quotes":false}`).wantOK(t, 200)

		// Settings by REST: exclude_replies, exclude_reposts, contracts_only.
		settings := func(body string) {
			s.do(t, "PATCH", "/v1/settings", xgJsonHdr(k.key), body).wantOK(t, 200)
		}
		settings(`{"exclude_replies":true}`)
		notSent("exclude_replies", post(hs[1], "reply", "reply"), post(hs[1], "post", "marker 3"))
		settings(`{"exclude_replies":false,"exclude_reposts":true}`)
		notSent("exclude_reposts", post(hs[1], "repost", "repost"), post(hs[1], "post", "marker 4"))
		settings(`{"exclude_reposts":false,"contracts_only":true}`)
		notSent("contracts_only", post(hs[1], "post", "no contract"), post(hs[1], "post", "ca "+solanaCA))
		settings(`{"contracts_only":false}`)

		// Settings by the bot: the keyboard, a press edits it in place.
		ans := say(t, fake, chat, user, "/settings")
		if !strings.Contains(ans, "Notification settings") {
			t.Fatalf("/settings answered %q", ans)
		}
		kb := telegramfake.Sent(fake.Calls("sendMessage"), chat)
		if last := kb[len(kb)-1]; !strings.Contains(last.Str("reply_markup"), "set:notifications_paused") {
			t.Fatalf("/settings keyboard: %s", last.Str("reply_markup"))
		}
		fake.Inject(telegramfake.Press(chat, user, 5555, "set:notifications_paused"))
		got, ok := fake.Wait(chatWait, func(cs []telegramfake.Call) bool {
			n := 0
			for _, c := range cs {
				if c.Method == "answerCallbackQuery" || c.Method == "editMessageText" && c.Int("message_id") == 5555 {
					n++
				}
			}
			return n == 2
		})
		if !ok {
			t.Fatalf("a press: no answer and edit; calls:\n%s", telegramfake.String(got))
		}
		st := s.do(t, "GET", "/v1/settings", bearer(k.key), nil).wantOK(t, 200)
		if !st.boolean(t, "notifications_paused") {
			t.Fatalf("settings after the press: %v", st)
		}
		paused := post(hs[0], "post", "while paused")
		settings(`{"notifications_paused":false}`)
		notSent("notifications_paused", paused, post(hs[0], "post", "after the pause"))

		// /apikey: a new key, shown once; the old one stops at once.
		ans = wantSay(t, fake, chat, user, "/apikey", "new API key")
		newKey := regexp.MustCompile(`xg_[A-Za-z0-9_-]+`).FindString(ans)
		if newKey == "" || newKey == k.key {
			t.Fatalf("/apikey answered %q", ans)
		}
		s.do(t, "GET", "/v1/accounts", bearer(k.key), nil).wantErr(t, 401, "unauthorized")
		s.do(t, "GET", "/v1/accounts", bearer(newKey), nil).wantOK(t, 200)
	})
}
