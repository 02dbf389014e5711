package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/alertd/alertd/edge/telegram/telegramfake"
)

// TestChatLinkAtIssue: POST /admin/v1/keys with telegram_user_id links the
// account; the bot knows the user at once and the dashboard's Telegram
// login widget signs the linked user in.
func TestChatLinkAtIssue(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		const user = 7301
		k := s.issue(t, map[string]any{"product": "xg", "plan": "pro", "telegram_user_id": user})
		s.adminDo(t, "POST", "/admin/v1/keys", map[string]any{"product": "xg", "telegram_user_id": "x"}).wantErr(t, 400, "bad_request")

		wantSay(t, fake, user, user, "/start", "You are linked (account "+k.account)
		hs := s.xgUsers(t, 1, false)
		wantSay(t, fake, user, user, "/track "+hs[0], "Now tracking @"+hs[0])
		alertOf(t, fake, user, s.xgPost(t, hs[0], "linked at issue", 0))

		body, _ := json.Marshal(xgTelegramFields(user, time.Now(), telegramfake.Token))
		r := s.do(t, "POST", "/v1/auth/telegram", hdr{"Content-Type": "application/json"}, body)
		r.wantOK(t, 200)
		tok := xgSessionCookie(t, r)
		list := s.do(t, "GET", "/v1/accounts", xgWithCookie(tok), nil).wantOK(t, 200)
		if n := list.num(t, "count"); n != 1 {
			t.Errorf("the Telegram session sees %v tracked accounts, want 1", n)
		}
	})
}
