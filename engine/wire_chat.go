package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/alertd/alertd/actors/chat"
	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/edge/telegram"
	"github.com/alertd/alertd/protocol"
)

// TelegramConfig configures the chat-messenger bot (CONTRACT.md section 4).
type TelegramConfig struct {
	// APIURL is the Bot API base (--telegram-api-url).
	APIURL string
	// PollTimeout is getUpdates' long-poll timeout.
	PollTimeout time.Duration
	// Limits are the Bot API's rate limits and the outbox's retries.
	Limits chat.Limits
}

// DefaultTelegramConfig is the public Bot API with its published limits.
func DefaultTelegramConfig() TelegramConfig {
	return TelegramConfig{APIURL: telegram.DefaultAPIURL, PollTimeout: 25 * time.Second, Limits: chat.DefaultLimits()}
}

// chatServices are the bot's parts: the stats, the Community Watch chat
// sink, and what startChatBot needs.
type chatServices struct {
	Outbox   *chat.Outbox
	Chats    *chat.Chats
	Products *chat.Products
	client   *telegram.Client
	reg      *tweetalerts.Registry
	log      *slog.Logger
}

// chatSink is the Community Watch chat sink (nil without a bot).
func (e *Engine) chatSink() cw.ChatSink {
	if e.chat == nil {
		return nil
	}
	return e.chat.Products
}

// wireChat starts the chat-messenger bot when a token is set: the chat
// registry, the durable outbox (resuming what was queued), the Tweet Alerts
// chat channel (singleton "chat-tweetalerts", told every new post: see
// changes.go), the products' chat channel (singleton "chat-products": ECA,
// Search Alerts and Trending frames heard on the hub) and the update poller
// with the commands (startChatBot, once every feature is wired). Without a
// token it does nothing and the engine runs as before. The stop func stops
// the channels, then the outbox.
func wireChat(ctx context.Context, e *Engine, cfg *Config, reg *tweetalerts.Registry, log *slog.Logger) (func(), error) {
	if cfg.TelegramBotToken == "" {
		return nil, nil
	}
	log = log.With("component", "telegram")
	client, err := telegram.NewClient(cfg.TelegramBotToken, cfg.Telegram.APIURL, log)
	if err != nil {
		// Not a token BotFather gives: the login widget may still verify
		// with it (as before the bot existed), the bot stays off.
		log.Warn("telegram bot off: the token is not a Bot API token", "err", err.Error())
		return nil, nil
	}
	chats := chat.NewChats(e.store)
	if err := chats.Load(ctx); err != nil {
		return nil, fmt.Errorf("load chats: %w", err)
	}
	ocfg := chat.Config{API: client, Store: e.store, Chats: chats, Limits: cfg.Telegram.Limits,
		System: e.system, Supervisor: e.kit.Supervisor(), Log: log}
	if e.owners != nil {
		ocfg.Owners = e.owners // a chat's messages are sent by its owner (engine.go adds the outbox)
		ocfg.Nodes = func() int { return len(e.cluster.Members()) }
	}
	out := chat.NewOutbox(ocfg)
	if err := out.Start(ctx); err != nil {
		out.Stop()
		return nil, err
	}
	alerts, err := chat.StartTweetAlerts(ctx, e.kit, chat.TweetAlertsDeps{Registry: reg, Limit: e.tweetAlertsLimit,
		Outbox: out, Log: log})
	if err != nil {
		out.Stop()
		return nil, err
	}
	e.products.chat = alerts
	prods, err := chat.StartProducts(ctx, e.kit, chat.ProductsDeps{Hub: e.hub, Outbox: out, Log: log,
		Subscribed: func(acct string, p protocol.Product) bool {
			sub, ok := e.registry.Subscription(acct, p)
			return ok && !sub.Expired(time.Now())
		},
		TrendingCategories: e.store.TrendingCategories})
	if err != nil {
		alerts.Stop()
		out.Stop()
		return nil, err
	}
	chats.SetOnLinked(prods.Follow)
	e.chat = &chatServices{Outbox: out, Chats: chats, Products: prods, client: client, reg: reg, log: log}
	return func() {
		alerts.Stop()
		prods.Stop()
		out.Stop()
		client.Close()
	}, nil
}

// startChatBot starts the bot's update poller once every feature is wired
// (the commands reach the Community Watch registry); its stop func runs
// before the other features' (it is wired last), so no answer is made
// while the channels stop. Nothing without a bot.
func (e *Engine) startChatBot(cfg *Config, cwReg *cw.Registry, pf *pumpfun.Registry) func() {
	c := e.chat
	if c == nil {
		return nil
	}
	// The callers of accounts with a chat: their callouts go to the chats.
	for _, acct := range c.Chats.Accounts() {
		for _, t := range pf.List(acct) {
			if slices.Contains(t.AlertTypes, pumpfun.AlertCallouts) {
				c.Products.FollowCaller(acct, t.Wallet)
			}
		}
	}
	bot := telegram.NewBot(telegram.Deps{Accounts: e.registry, Links: e.store, Registry: c.reg, CW: cwReg, PF: pf,
		Callers: c.Products, Dir: e.dir, Chats: c.Chats, Log: c.log}, "")
	poller := telegram.NewPoller(c.client, bot, c.Outbox, e.store, cfg.Telegram.PollTimeout, c.log)
	poller.Setup = func(ctx context.Context) {
		if name, err := c.client.Me(ctx); err == nil {
			bot.SetUsername(name)
		} else {
			c.log.Warn("telegram: getMe", "err", err)
		}
		if err := c.client.SetCommands(ctx, telegram.Commands); err != nil {
			c.log.Warn("telegram: setMyCommands", "err", err)
		}
	}
	if e.cluster != nil {
		// One poller in the cluster: Telegram answers 409 to a second
		// getUpdates, and a command is handled once. The offset is stored
		// with each update's answers, so the next leader goes on from it.
		lead := e.cluster.Singleton(cfg.DatabaseURL, "telegram-poller", poller.Run)
		lead.Start()
		return lead.Stop
	}
	poller.Start()
	return poller.Stop
}

// ChatStats are the bot's outbox counters (queue depth and send outcomes:
// alertd_queue_depth{queue="chat"}, alertd_deliveries_total{channel="chat"});
// ok is false when the bot is off.
func (e *Engine) ChatStats() (chat.Stats, bool) {
	if e.chat == nil {
		return chat.Stats{}, false
	}
	return e.chat.Outbox.Stats(), true
}
