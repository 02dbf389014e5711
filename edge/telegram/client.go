package telegram

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/chat"
	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"
	tu "github.com/mymmrac/telego/telegoutil"
)

// DefaultAPIURL is the public Bot API.
const DefaultAPIURL = "https://api.telegram.org"

// Client is the Bot API as alertd calls it, over telego: no retries of its
// own (the outbox and the poller decide), one HTTP client, every call
// bounded by its context.
type Client struct {
	bot *telego.Bot
	tr  *http.Transport
}

// NewClient returns a client of the bot with token at apiURL (methods at
// <apiURL>/bot<token>/<method>).
func NewClient(token, apiURL string, log *slog.Logger) (*Client, error) {
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	// net/http rather than telego's fasthttp caller: that one honours a
	// context's deadline only, so stopping would wait out a long poll.
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 32, IdleConnTimeout: time.Minute,
		TLSHandshakeTimeout: 10 * time.Second}
	bot, err := telego.NewBot(token, telego.WithAPIServer(strings.TrimRight(apiURL, "/")),
		telego.WithHTTPClient(&http.Client{Transport: keyCheck{next: tr}}), telego.WithLogger(quietLogger{log: log}))
	if err != nil {
		return nil, err
	}
	return &Client{bot: bot, tr: tr}, nil
}

// Close drops idle connections (call after the poller and outbox stopped).
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// quietLogger keeps telego's debug output (which holds request bodies)
// out of the logs; its errors go to slog without the token.
type quietLogger struct{ log *slog.Logger }

func (quietLogger) Debugf(string, ...any) {}
func (l quietLogger) Errorf(format string, args ...any) {
	if l.log != nil {
		l.log.Debug("telegram client", "msg", strings.TrimSpace(format))
	}
}

// apiError turns telego's error into *chat.APIError (a refused call) or
// leaves it (a network error).
func apiError(err error) error {
	var e *ta.Error
	if errors.As(err, &e) {
		out := &chat.APIError{Code: e.ErrorCode, Description: e.Description}
		if e.Parameters != nil {
			out.RetryAfter = time.Duration(e.Parameters.RetryAfter) * time.Second
			out.MigrateTo = e.Parameters.MigrateToChatID
		}
		return out
	}
	return err
}

// Me returns the bot's username.
func (c *Client) Me(ctx context.Context) (string, error) {
	u, err := c.bot.GetMe(ctx)
	if err != nil {
		return "", apiError(err)
	}
	return u.Username, nil
}

// Updates long-polls getUpdates from offset for up to wait.
func (c *Client) Updates(ctx context.Context, offset int64, wait time.Duration) ([]telego.Update, error) {
	us, err := c.bot.GetUpdates(ctx, &telego.GetUpdatesParams{Offset: int(offset), Timeout: int(wait / time.Second),
		AllowedUpdates: []string{"message", "callback_query", "my_chat_member"}})
	return us, apiError(err)
}

// SetCommands registers the command list (setMyCommands).
func (c *Client) SetCommands(ctx context.Context, cmds []Command) error {
	list := make([]telego.BotCommand, len(cmds))
	for i, x := range cmds {
		list[i] = telego.BotCommand{Command: x.Name, Description: x.Description}
	}
	return apiError(c.bot.SetMyCommands(ctx, &telego.SetMyCommandsParams{Commands: list}))
}

// CreateTopic creates a forum topic (chat.API).
func (c *Client) CreateTopic(ctx context.Context, chatID int64, title string) (int64, error) {
	t, err := c.bot.CreateForumTopic(ctx, &telego.CreateForumTopicParams{ChatID: tu.ID(chatID), Name: chat.Cut(title, 128)})
	if err != nil {
		return 0, apiError(err)
	}
	return int64(t.MessageThreadID), nil
}

// Send makes m's call (chat.API).
func (c *Client) Send(ctx context.Context, m *chat.Message, thread int64) error {
	var err error
	switch {
	case m.Callback != "":
		err = c.bot.AnswerCallbackQuery(ctx, &telego.AnswerCallbackQueryParams{CallbackQueryID: m.Callback, Text: m.Text})
	case m.Edit != 0:
		_, err = c.bot.EditMessageText(ctx, &telego.EditMessageTextParams{ChatID: tu.ID(m.Chat), MessageID: int(m.Edit),
			Text: m.Text, ParseMode: telego.ModeHTML, ReplyMarkup: keyboard(m.Keyboard)})
	case len(m.Photos) == 1:
		_, err = c.bot.SendPhoto(ctx, &telego.SendPhotoParams{ChatID: tu.ID(m.Chat), MessageThreadID: int(thread),
			Photo: tu.FileFromURL(m.Photos[0]), Caption: m.Text, ParseMode: telego.ModeHTML, ReplyMarkup: keyboardMarkup(m.Keyboard)})
	case len(m.Photos) > 1:
		media := make([]telego.InputMedia, len(m.Photos))
		for i, u := range m.Photos {
			p := &telego.InputMediaPhoto{Type: telego.MediaTypePhoto, Media: tu.FileFromURL(u)}
			if i == 0 {
				p.Caption, p.ParseMode = m.Text, telego.ModeHTML
			}
			media[i] = p
		}
		_, err = c.bot.SendMediaGroup(ctx, &telego.SendMediaGroupParams{ChatID: tu.ID(m.Chat), MessageThreadID: int(thread), Media: media})
	default:
		_, err = c.bot.SendMessage(ctx, &telego.SendMessageParams{ChatID: tu.ID(m.Chat), MessageThreadID: int(thread),
			Text: m.Text, ParseMode: telego.ModeHTML,
			ReplyMarkup: keyboardMarkup(m.Keyboard)})
	}
	return apiError(err)
}

func keyboard(rows [][]chat.Button) *telego.InlineKeyboardMarkup {
	if len(rows) == 0 {
		return nil
	}
	kb := &telego.InlineKeyboardMarkup{InlineKeyboard: make([][]telego.InlineKeyboardButton, len(rows))}
	for i, r := range rows {
		for _, b := range r {
			kb.InlineKeyboard[i] = append(kb.InlineKeyboard[i], telego.InlineKeyboardButton{Text: b.Text, CallbackData: b.Data})
		}
	}
	return kb
}

// keyboardMarkup is keyboard as the ReplyMarkup interface (a nil pointer
// in an interface would be sent as null).
func keyboardMarkup(rows [][]chat.Button) telego.ReplyMarkup {
	if kb := keyboard(rows); kb != nil {
		return kb
	}
	return nil
}
