package e2e

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/edge/telegram/telegramfake"
)

// waitText waits for a send to chat containing want and returns the sends
// before it.
func waitText(t *testing.T, fake *telegramfake.Server, chat int64, want string) []telegramfake.Call {
	t.Helper()
	calls, ok := fake.Wait(chatWait, func(cs []telegramfake.Call) bool {
		for _, c := range telegramfake.Sent(cs, chat) {
			if strings.Contains(telegramfake.Text(c), want) {
				return true
			}
		}
		return false
	})
	sent := telegramfake.Sent(calls, chat)
	if !ok {
		t.Fatalf("chat %d: nothing with %q within %s; sends:\n%s", chat, want, chatWait, telegramfake.String(sent))
	}
	for i, c := range sent {
		if strings.Contains(telegramfake.Text(c), want) {
			return sent[:i]
		}
	}
	return nil
}

// TestChatProducts: one bot serves every product: a chat linked to an
// account gets its Trending alerts (the categories of PUT
// /v1/trending/subscriptions decide), its Search Alerts and its ECA
// matches.
func TestChatProducts(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		const user = 7401
		trend := s.issue(t, map[string]any{"product": "trend"})
		eca := s.issue(t, map[string]any{"product": "eca", "account_id": trend.account})
		wantSay(t, fake, user, user, "/link "+trend.key, "Linked")

		s.call(t, "PUT", "/v1/trending/subscriptions", trend.key, `{"categories":["crypto"]}`).wantOK(t, 200)
		news, newsTw := trendingObs("news")
		s.send(t, news)
		s.sync(t)
		crypto, cryptoTw := trendingObs("crypto")
		s.send(t, crypto)
		before := waitText(t, fake, user, cryptoTw["tweet_url"].(string))
		for _, c := range before {
			if strings.Contains(telegramfake.Text(c), newsTw["tweet_id"].(string)) {
				t.Errorf("a Trending alert of a category not subscribed: %s", telegramfake.Text(c))
			}
		}

		sa := s.issue(t, map[string]any{"product": "sa", "account_id": trend.account})
		w := word("chatsa")
		s.call(t, "POST", "/v1/sa/queries", sa.key, map[string]any{"query_text": w, "interval": "1m"}).wantOK(t, 201)
		hit0 := postObs(newHandle("sa"), "post", "news about "+w+" <now>")
		s.send(t, hit0)
		waitText(t, fake, user, "news about "+w+" &lt;now&gt;")

		tick := strings.ToUpper(word("T"))
		s.call(t, "POST", "/v1/eca/watchlist", eca.key, map[string]any{"ticker": "$" + tick}).wantOK(t, 201)
		hit := ecaLaunch("token_launched", solAddr(), solAddr(), tick, "Chat <Token>")
		s.send(t, hit)
		waitText(t, fake, user, "Chat &lt;Token&gt; ("+tick+")")
	})
}

// TestChatCommunityWatch: Community Watch follows go to the account's
// chats, and the new-follower digest once /digest switched it on for the
// handle in the bot.
func TestChatCommunityWatch(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		const user = 7501
		k := s.issue(t, map[string]any{"product": "cw"})
		wantSay(t, fake, user, user, "/link "+k.key, "Linked")
		h := watchHandle("cwchat")
		s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
		wantSay(t, fake, user, user, "/digest "+h+" maybe", "Usage")
		wantSay(t, fake, user, user, "/digest nobody_here on", "do not watch")

		// Off by default: this digest is not sent; the follow after it is.
		s.send(t, watchFollowing(h, "501", "502"))
		s.send(t, watchFollowersNew(h, "701"))
		s.send(t, watchFollowing(h, "501", "502", "503"))
		before := waitText(t, fake, user, "followed <b>@Acct503</b>")
		for _, c := range before {
			if strings.Contains(telegramfake.Text(c), "new followers") {
				t.Errorf("a digest while it was off: %s", telegramfake.Text(c))
			}
		}
		wantSay(t, fake, user, user, "/digest "+h+" on", "digest of @"+h+" on")
		s.send(t, watchFollowersNew(h, "702", "703"))
		waitText(t, fake, user, "2 new followers of @"+h)
	})
}

// TestChatPumpFunCallers: callers are added and removed in the bot (a
// wallet target with the callouts alert type, as REST shows it), and their
// callouts come to the chat.
func TestChatPumpFunCallers(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		const user = 7601
		k := s.issue(t, map[string]any{"product": "pf"})
		wantSay(t, fake, user, user, "/link "+k.key, "Linked")
		wantSay(t, fake, user, user, "/callers", "No callers yet")
		wantSay(t, fake, user, user, "/callers add not-a-wallet", "not a Solana address")
		caller := solAddr()
		wantSay(t, fake, user, user, "/callers add "+caller+" my <best> caller", "Caller added")
		wantSay(t, fake, user, user, "/callers add "+caller, "already on your PumpFun list")
		wantSay(t, fake, user, user, "/callers", "my &lt;best&gt; caller")
		list := s.call(t, "GET", "/v1/pf/targets", k.key, nil).wantOK(t, 200)
		if got := string(mustJSON(t, list)); !strings.Contains(got, caller) || !strings.Contains(got, "callouts") {
			t.Fatalf("REST targets after /callers add: %s", got)
		}
		mint := solAddr()
		s.send(t, pfCallout(caller, mint, 50000))
		waitText(t, fake, user, "Callout</b> by caller_"+caller[:6])
		wantSay(t, fake, user, user, "/callers remove "+caller, "Caller removed")
		wantSay(t, fake, user, user, "/callers remove "+caller, "not one of your callers")
	})
}
