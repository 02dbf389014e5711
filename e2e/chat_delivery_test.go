package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/edge/telegram/telegramfake"
	"github.com/alertd/alertd/internal/testkit"
)

// chatLinked issues a key, links user's private chat to it and tracks n
// fresh handles; it returns the key and the handles.
func chatLinked(t *testing.T, s *server, fake *telegramfake.Server, user int64, n int) (issued, []string) {
	t.Helper()
	k := s.xgKey(t, "pro")
	hs := s.xgUsers(t, n, false)
	wantSay(t, fake, user, user, "/link "+k.key, "Linked")
	wantSay(t, fake, user, user, "/track "+strings.Join(hs, " "), "Now tracking")
	return k, hs
}

// TestChatForumTopics: in a forum group with auto_topics on, each tracked
// handle gets one topic, created once and reused, created again when it was
// deleted; with contract_topic on, contract posts go to one contracts topic.
func TestChatForumTopics(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		const user = 7101
		k, hs := chatLinked(t, s, fake, user, 2)
		const group = int64(-1007101)
		n := len(telegramfake.Sent(fake.Calls(""), group))
		fake.Inject(telegramfake.ForumMessage(group, user, "/start"))
		if txt := telegramfake.Text(waitSent(t, fake, group, n)[n]); !strings.Contains(txt, "This group now receives") {
			t.Fatalf("/start in the group answered %q", txt)
		}
		post := func(h, text string) jsonMap {
			p := postObs(h, "post", text)
			s.send(t, p)
			return p
		}
		topics := func(name string) []telegramfake.Call {
			var out []telegramfake.Call
			for _, c := range fake.Calls("createForumTopic") {
				if c.Int("chat_id") == group && c.Str("name") == name && c.Answered == 200 {
					out = append(out, c)
				}
			}
			return out
		}
		c1, _ := alertOf(t, fake, group, post(hs[0], "first"))
		t1 := c1.Int("message_thread_id")
		if t1 == 0 || len(topics("@"+hs[0])) != 1 {
			t.Fatalf("first alert: thread %d, topics %d", t1, len(topics("@"+hs[0])))
		}
		c2, _ := alertOf(t, fake, group, post(hs[0], "second"))
		c3, _ := alertOf(t, fake, group, post(hs[1], "other handle"))
		if c2.Int("message_thread_id") != t1 || len(topics("@"+hs[0])) != 1 {
			t.Errorf("second alert: thread %d (want %d), topics %d", c2.Int("message_thread_id"), t1, len(topics("@"+hs[0])))
		}
		if t3 := c3.Int("message_thread_id"); t3 == 0 || t3 == t1 {
			t.Errorf("other handle's alert: thread %d", t3)
		}
		// A command sent in a topic is answered in that topic.
		n = len(telegramfake.Sent(fake.Calls(""), group))
		inTopic := telegramfake.ForumMessage(group, user, "/list")
		inTopic["message"].(map[string]any)["is_topic_message"] = true
		inTopic["message"].(map[string]any)["message_thread_id"] = t1
		fake.Inject(inTopic)
		if a := waitSent(t, fake, group, n)[n]; a.Int("message_thread_id") != t1 || !strings.Contains(telegramfake.Text(a), "Tracking 2/") {
			t.Errorf("/list in topic %d answered in thread %d: %q", t1, a.Int("message_thread_id"), telegramfake.Text(a))
		}
		// The private chat gets the same alerts, without threads.
		pc, _ := alertOf(t, fake, user, post(hs[0], "private too"))
		if pc.Int("message_thread_id") != 0 {
			t.Errorf("private alert with a thread: %v", pc.Params)
		}

		s.do(t, "PATCH", "/v1/settings", xgJsonHdr(k.key), `{"contract_topic":true}`).wantOK(t, 200)
		cc, _ := alertOf(t, fake, group, post(hs[0], "ca "+solanaCA))
		if tc := cc.Int("message_thread_id"); tc == 0 || tc == t1 || len(topics("Contracts")) != 1 {
			t.Errorf("contract alert: thread %d, contracts topics %d", tc, len(topics("Contracts")))
		}
		cc2, _ := alertOf(t, fake, group, post(hs[1], "another ca "+solanaCA))
		if cc2.Int("message_thread_id") != cc.Int("message_thread_id") {
			t.Errorf("second contract alert in thread %d, want %d", cc2.Int("message_thread_id"), cc.Int("message_thread_id"))
		}

		// A deleted topic is created again.
		fake.DeleteTopic(group, t1)
		c4, _ := alertOf(t, fake, group, post(hs[0], "after delete"))
		if t4 := c4.Int("message_thread_id"); t4 == 0 || t4 == t1 || len(topics("@"+hs[0])) != 2 {
			t.Errorf("after the topic was deleted: thread %d (old %d), topics %d", t4, t1, len(topics("@"+hs[0])))
		}
		// auto_topics off: the general thread.
		s.do(t, "PATCH", "/v1/settings", xgJsonHdr(k.key), `{"auto_topics":false,"contract_topic":false}`).wantOK(t, 200)
		c5, _ := alertOf(t, fake, group, post(hs[0], "no topics"))
		if c5.Int("message_thread_id") != 0 {
			t.Errorf("auto_topics off: thread %d", c5.Int("message_thread_id"))
		}
	})
}

// TestChatRateLimitAndBlock: a 429's retry_after is waited out and the
// message sent once; a 403 stops sending to the chat and marks it.
func TestChatRateLimitAndBlock(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		const user = 7201
		_, hs := chatLinked(t, s, fake, user, 1)

		fake.Script("sendPhoto", telegramfake.Response{Status: 429, Description: "Too Many Requests: retry after 1", RetryAfter: 1})
		p := postObs(hs[0], "post", "rate limited once")
		s.send(t, p)
		c, _ := alertOf(t, fake, user, p)
		var limited []telegramfake.Call
		for _, x := range fake.Calls("sendPhoto") {
			if x.Answered == 429 {
				limited = append(limited, x)
			}
		}
		if len(limited) != 1 {
			t.Fatalf("429 answers: %d, want 1", len(limited))
		}
		if wait := c.At.Sub(limited[0].At); wait < 900*time.Millisecond {
			t.Errorf("sent again %v after the 429, want retry_after (1 s) waited out", wait)
		}
		if n := mentions(telegramfake.Sent(fake.Calls(""), user), p); n != 1 {
			t.Errorf("the rate-limited alert was sent %d times, want once", n)
		}

		fake.Script("sendPhoto", telegramfake.Response{Status: 403, Description: "Forbidden: bot was blocked by the user"})
		blocked := postObs(hs[0], "post", "refused")
		s.send(t, blocked)
		testkit.WaitFor(t, chatWait, "the 403 is counted", func() (bool, string) {
			st, _ := s.eng.ChatStats()
			return st.Blocked == 1, "blocked " + itoa(st.Blocked)
		})
		after := postObs(hs[0], "post", "after the block")
		s.send(t, after)
		s.sync(t)
		if st, _ := s.eng.ChatStats(); st.Queued != 0 {
			t.Errorf("after the 403: %d messages still queued for a blocked chat", st.Queued)
		}
		sent := telegramfake.Sent(fake.Calls(""), user)
		if mentions(sent, blocked) != 0 || mentions(sent, after) != 0 {
			t.Errorf("sent to a chat that blocked the bot")
		}
		// The console shows the outbox.
		st := s.adminDo(t, "GET", "/admin/v1/stats", nil).wantOK(t, 200).object(t, "chat")
		if st.num(t, "blocked") != 1 || st.num(t, "rate_limited") != 1 || st.num(t, "chats") != 1 || st.num(t, "queued") != 0 {
			t.Errorf("console chat queue %v", st)
		}
		// Linking again (the user unblocked the bot and said /start) resumes.
		wantSay(t, fake, user, user, "/start", "You are linked")
		alertOf(t, fake, user, func() jsonMap { p := postObs(hs[0], "post", "back"); s.send(t, p); return p }())
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
