package telegram

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/chat"
	"github.com/mymmrac/telego"
)

// Updater is the long-polling side of the Bot API (*Client).
type Updater interface {
	Updates(ctx context.Context, offset int64, wait time.Duration) ([]telego.Update, error)
}

// OffsetStore reads the stored update offset.
type OffsetStore interface {
	BotOffset(ctx context.Context) (int64, error)
}

// Queuer stores an update's answers together with the next offset
// (*chat.Outbox).
type Queuer interface {
	Queue(ctx context.Context, ms []*chat.Message, offset int64) error
}

// Poller long-polls getUpdates on one goroutine it owns. Each update is
// handled, then its answers and the offset after it are stored in one
// transaction before the next getUpdates call acknowledges it to Telegram:
// across a crash (SIGKILL included) no update is lost (the offset moved
// only with its answers) or answered twice (they were stored together).
type Poller struct {
	api    Updater
	bot    *Bot
	out    Queuer
	store  OffsetStore
	wait   time.Duration
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
	// Setup, if set, runs on the poller's goroutine before the first poll
	// (getMe, setMyCommands): a slow Bot API does not hold up the start.
	Setup func(ctx context.Context)
}

// NewPoller returns a stopped poller; wait is getUpdates' long-poll timeout.
func NewPoller(api Updater, bot *Bot, out Queuer, store OffsetStore, wait time.Duration, log *slog.Logger) *Poller {
	if log == nil {
		log = slog.Default()
	}
	return &Poller{api: api, bot: bot, out: out, store: store, wait: wait, log: log, done: make(chan struct{})}
}

// Start starts polling from the stored offset, on a goroutine of its own
// (one node; a cluster runs Run on its leader, cluster.Singleton).
func (p *Poller) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		defer close(p.done)
		p.Run(ctx)
	}()
}

// Stop stops polling and waits; an update being handled is finished or
// left unacknowledged.
func (p *Poller) Stop() {
	p.once.Do(func() {
		if p.cancel != nil {
			p.cancel()
			<-p.done
		}
	})
}

// Run polls from the stored offset until ctx ends: Setup, then getUpdates
// after getUpdates. It reads the offset when it starts, so a node that takes
// the polling over from another goes on after the last update whose answers
// were stored, wherever they were stored.
func (p *Poller) Run(ctx context.Context) {
	if p.Setup != nil {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		p.Setup(sctx)
		cancel()
	}
	var offset int64
	for {
		off, err := p.store.BotOffset(ctx)
		if err == nil {
			offset = off
			break
		}
		p.log.Warn("telegram: read update offset", "err", err)
		if !sleep(ctx, time.Second) {
			return
		}
	}
	backoff := time.Second
	for {
		us, err := p.api.Updates(ctx, offset, p.wait)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			wait := backoff
			var e *chat.APIError
			if errors.As(err, &e) && e.RetryAfter > 0 {
				wait = e.RetryAfter
			}
			p.log.Warn("telegram: getUpdates", "err", err, "retry_in", wait.String())
			backoff = min(backoff*2, 30*time.Second)
			if !sleep(ctx, wait) {
				return
			}
			continue
		}
		backoff = time.Second
		for i := range us {
			next := int64(us[i].UpdateID) + 1
			if next <= offset {
				continue // Telegram never repeats an acknowledged update; a fake might
			}
			var ms []*chat.Message
			if in, ok := FromUpdate(&us[i]); ok {
				ms = p.bot.Handle(ctx, in)
			}
			for {
				// Not ctx: an update handled while stopping is still stored.
				qctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := p.out.Queue(qctx, ms, next)
				cancel()
				if err == nil {
					break
				}
				p.log.Warn("telegram: store answers and offset", "err", err)
				if !sleep(ctx, time.Second) {
					return
				}
			}
			offset = next
		}
	}
}

// sleep waits d or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
