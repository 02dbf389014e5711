package e2e

// Harness of the chat-bot end-to-end tests: an engine whose bot talks to a
// fake Bot API server (edge/telegram/telegramfake) with the limits shortened.

import (
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/edge/telegram/telegramfake"
	"github.com/alertd/alertd/engine"
)

// chatWait bounds a wait for the bot's calls to the fake (a -race engine on
// a busy 2-core box); waits end as soon as the call is there.
const chatWait = 20 * time.Second

// chatConfig is tweetAlertsConfig with the bot on, talking to fake, with
// short paces so the suite is not paced by the Bot API's real limits.
func chatConfig(fake *telegramfake.Server) func(c *engine.Config) {
	return func(c *engine.Config) {
		tweetAlertsConfig(c)
		c.TelegramBotToken = telegramfake.Token
		c.Telegram.APIURL = fake.URL()
		c.Telegram.PollTimeout = time.Second
		c.Telegram.Limits.PerSecond = 1000
		c.Telegram.Limits.PrivateEvery = 5 * time.Millisecond
		c.Telegram.Limits.GroupEvery = 5 * time.Millisecond
		c.Telegram.Limits.Backoff = 50 * time.Millisecond
		c.Timings.SAIntervals = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, time.Hour}
	}
}

// startChat starts a fake Bot API and an engine whose bot uses it.
func startChat(t *testing.T, m storeMode, opts serverOpts) (*server, *telegramfake.Server) {
	t.Helper()
	fake := telegramfake.New()
	t.Cleanup(fake.Close) // after the engine's Close (cleanups run last first)
	opts.dbURL = m.DatabaseURL(t)
	opts.configure = chatConfig(fake)
	return startServer(t, opts), fake
}

// waitSent waits until chat has more than n successful sends and returns
// them all.
func waitSent(t *testing.T, fake *telegramfake.Server, chat int64, n int) []telegramfake.Call {
	t.Helper()
	calls, ok := fake.Wait(chatWait, func(cs []telegramfake.Call) bool { return len(telegramfake.Sent(cs, chat)) > n })
	if !ok {
		t.Fatalf("chat %d: no send beyond %d within %s; calls:\n%s", chat, n, chatWait, telegramfake.String(calls))
	}
	return telegramfake.Sent(calls, chat)
}

// say sends text as user in chat and returns the bot's first answer.
func say(t *testing.T, fake *telegramfake.Server, chat, user int64, text string) string {
	t.Helper()
	n := len(telegramfake.Sent(fake.Calls(""), chat))
	fake.Inject(telegramfake.Message(chat, user, text))
	return telegramfake.Text(waitSent(t, fake, chat, n)[n])
}

// wantSay sends text and asserts the answer contains want.
func wantSay(t *testing.T, fake *telegramfake.Server, chat, user int64, text, want string) string {
	t.Helper()
	got := say(t, fake, chat, user, text)
	if !strings.Contains(got, want) {
		t.Fatalf("%q answered %q, want it to contain %q", text, got, want)
	}
	return got
}

// alertOf waits for the alert of post p in chat (its URL in a send) and
// returns that send; every send before it is in earlier.
func alertOf(t *testing.T, fake *telegramfake.Server, chat int64, p jsonMap) (telegramfake.Call, []telegramfake.Call) {
	t.Helper()
	url := "https://x.com/" + p["author"].(jsonMap)["handle"].(string) + "/status/" + p["id"].(string)
	calls, ok := fake.Wait(chatWait, func(cs []telegramfake.Call) bool {
		for _, c := range telegramfake.Sent(cs, chat) {
			if strings.Contains(telegramfake.Text(c), url) {
				return true
			}
		}
		return false
	})
	sent := telegramfake.Sent(calls, chat)
	if !ok {
		t.Fatalf("chat %d: no alert of %s within %s; sends:\n%s", chat, url, chatWait, telegramfake.String(sent))
	}
	for i, c := range sent {
		if strings.Contains(telegramfake.Text(c), url) {
			return c, sent[:i]
		}
	}
	panic("unreachable")
}

// mentions counts the sends to chat that contain the post's URL.
func mentions(sent []telegramfake.Call, p jsonMap) int {
	url := "/status/" + p["id"].(string)
	n := 0
	for _, c := range sent {
		if strings.Contains(telegramfake.Text(c), url) {
			n++
		}
	}
	return n
}
