package telegram

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/chat"
	"github.com/alertd/alertd/edge/telegram/telegramfake"
)

// memQueue stores answers and the offset as the outbox does.
type memQueue struct {
	mu      sync.Mutex
	offset  int64
	answers []string // "chat:text"
	fail    int      // the next fail calls fail
	done    chan int64
}

func (q *memQueue) Queue(_ context.Context, ms []*chat.Message, offset int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail > 0 {
		q.fail--
		return context.DeadlineExceeded
	}
	for _, m := range ms {
		q.answers = append(q.answers, m.ID)
	}
	q.offset = offset
	q.done <- offset
	return nil
}

func (q *memQueue) BotOffset(context.Context) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.offset, nil
}

func newTestPoller(t *testing.T, fake *telegramfake.Server, q *memQueue) *Poller {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	c, err := NewClient(telegramfake.Token, fake.URL(), log)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPoller(c, NewBot(Deps{Log: log}, telegramfake.Username), q, q, time.Second, log)
	p.Start()
	t.Cleanup(func() {
		p.Stop()
		c.Close()
	})
	return p
}

func awaitOffset(t *testing.T, q *memQueue, want int64) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case off := <-q.done:
			if off == want {
				return
			}
		case <-timeout:
			t.Fatalf("offset %d not stored", want)
		}
	}
}

// TestPollerStoresOffsetWithAnswers: each update's answers and the next
// offset are stored together; a poller started over the same store goes on
// after the last stored update, so none is handled twice or skipped.
func TestPollerStoresOffsetWithAnswers(t *testing.T) {
	fake := telegramfake.New()
	defer fake.Close()
	q := &memQueue{done: make(chan int64, 100), fail: 1} // the first store fails: retried, not skipped
	p := newTestPoller(t, fake, q)
	fake.Inject(telegramfake.Message(1, 1, "/help"))
	fake.Inject(telegramfake.Message(1, 1, "not a command"))
	fake.Inject(telegramfake.Message(-9, 1, "/help@someone_else"))
	awaitOffset(t, q, 4)
	p.Stop()
	fake.Inject(telegramfake.Message(2, 2, "/help@"+telegramfake.Username))
	newTestPoller(t, fake, q)
	awaitOffset(t, q, 5)
	q.mu.Lock()
	defer q.mu.Unlock()
	if got := q.answers; len(got) != 2 || got[0] != "u1-0" || got[1] != "u4-0" {
		t.Fatalf("answers %v, want one to update 1 and one to update 4", got)
	}
}

// TestPollerWaitsOutRetryAfter: a 429 on getUpdates is waited out.
func TestPollerWaitsOutRetryAfter(t *testing.T) {
	fake := telegramfake.New()
	defer fake.Close()
	fake.Script("getUpdates", telegramfake.Response{Status: 429, Description: "Too Many Requests", RetryAfter: 1})
	q := &memQueue{done: make(chan int64, 100)}
	start := time.Now()
	newTestPoller(t, fake, q)
	fake.Inject(telegramfake.Message(1, 1, "/help"))
	awaitOffset(t, q, 2)
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("polled again after %v, before retry_after", waited)
	}
}
