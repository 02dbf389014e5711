package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/edge/telegram/telegramfake"
	"github.com/alertd/alertd/internal/testkit"
)

// TestProcessSIGKILLChatUpdates kills the engine (SIGKILL) while the bot is
// handling a stream of updates whose answers cannot be sent yet (the fake
// Bot API answers every send with a 429 and a long retry_after). After a
// restart on the same store every update is answered, exactly once: no
// update was lost (its offset was stored only with its answer) and none
// was handled again (the answer and the offset were stored together).
func TestProcessSIGKILLChatUpdates(t *testing.T) {
	testkit.ForEachStore(t, func(t *testing.T, st testkit.Store) {
		fake := telegramfake.New()
		t.Cleanup(fake.Close)
		args := []string{"--data-dir", t.TempDir(), "--telegram-api-url", fake.URL()}
		if u := st.DatabaseURL(t); u != "" {
			args = append(args, "--database-url", u)
		}
		env := "ALERTD_TELEGRAM_BOT_TOKEN=" + telegramfake.Token
		hold := make([]telegramfake.Response, 1000)
		for i := range hold {
			hold[i] = telegramfake.Response{Status: 429, Description: "Too Many Requests: retry after 60", RetryAfter: 60}
		}
		fake.Script("sendMessage", hold...)
		p := startProc(t, args, env)

		const n = 400
		const first = int64(8_000_000)
		for i := range int64(n) {
			// Each update from its own (unlinked) user in its own chat: one
			// answer per chat tells which updates were answered.
			fake.Inject(telegramfake.Message(first+i, first+i, fmt.Sprintf("/untrack h%d", i)))
		}
		testkit.WaitFor(t, 60*time.Second, "some updates handled", func() (bool, string) {
			return fake.Acked() > 1, fmt.Sprint("acked ", fake.Acked())
		})
		p.kill()
		acked := fake.Acked()
		fake.ClearScripts()
		startProc(t, args, env)
		calls, ok := fake.Wait(120*time.Second, func(cs []telegramfake.Call) bool {
			for i := range int64(n) {
				if len(telegramfake.Sent(cs, first+i)) == 0 {
					return false
				}
			}
			return true
		})
		if !ok {
			missing := 0
			for i := range int64(n) {
				if len(telegramfake.Sent(calls, first+i)) == 0 {
					missing++
				}
			}
			t.Fatalf("%d of %d updates never answered (acked %d at the kill)", missing, n, acked)
		}
		for i := range int64(n) {
			if got := len(telegramfake.Sent(calls, first+i)); got != 1 {
				t.Errorf("update %d answered %d times", i, got)
			}
		}
		t.Logf("killed with %d of %d updates acknowledged", acked-1, n)
	})
}
