package telegram

import (
	"context"
	"strings"

	"github.com/alertd/alertd/actors/chat"
	"github.com/alertd/alertd/persistence"
)

// setting is one of spec 1's six notification settings as a toggle.
type setting struct {
	name  string
	label string
	field func(s *persistence.TweetAlertsSettings) *bool
}

var settings = []setting{
	{"exclude_replies", "Skip replies", func(s *persistence.TweetAlertsSettings) *bool { return &s.ExcludeReplies }},
	{"exclude_reposts", "Skip reposts", func(s *persistence.TweetAlertsSettings) *bool { return &s.ExcludeReposts }},
	{"contracts_only", "Contract posts only", func(s *persistence.TweetAlertsSettings) *bool { return &s.ContractsOnly }},
	{"notifications_paused", "Pause notifications", func(s *persistence.TweetAlertsSettings) *bool { return &s.NotificationsPaused }},
	{"auto_topics", "A topic per handle (forums)", func(s *persistence.TweetAlertsSettings) *bool { return &s.AutoTopics }},
	{"contract_topic", "A topic for contracts (forums)", func(s *persistence.TweetAlertsSettings) *bool { return &s.ContractTopic }},
}

// callbackPrefix starts the data of a settings button.
const callbackPrefix = "set:"

func settingsText() string {
	return chat.Bold("Notification settings") + "\nTap a setting to switch it. They apply to the alerts in this chat."
}

func settingsKeyboard(s *persistence.TweetAlertsSettings) [][]chat.Button {
	rows := make([][]chat.Button, len(settings))
	for i, x := range settings {
		mark := "⬜ "
		if *x.field(s) {
			mark = "✅ "
		}
		rows[i] = []chat.Button{{Text: mark + x.label, Data: callbackPrefix + x.name}}
	}
	return rows
}

// callback toggles the setting of a pressed button, edits the settings
// message in place and answers the press.
func (b *Bot) callback(ctx context.Context, r *reply) {
	in := r.in
	name, ok := strings.CutPrefix(in.CallbackData, callbackPrefix)
	var x *setting
	for i := range settings {
		if settings[i].name == name {
			x = &settings[i]
		}
	}
	answer := func(text string) { r.add(&chat.Message{Callback: in.CallbackID, Text: text}) }
	if !ok || x == nil {
		answer("Unknown button.")
		return
	}
	acct, _, err := b.d.Links.TelegramLink(ctx, in.UserID)
	if err != nil {
		answer("Link your account first: /link <API_KEY>.")
		return
	}
	if _, ok := b.tweetAlerts(&reply{in: in}, acct); !ok {
		answer("No live Tweet Alerts subscription.")
		return
	}
	s, err := b.d.Registry.UpdateSettings(ctx, acct, func(s *persistence.TweetAlertsSettings) {
		f := x.field(s)
		*f = !*f
	})
	if err != nil {
		b.d.Log.Warn("telegram: settings", "err", err)
		answer("Something went wrong on our side; nothing changed.")
		return
	}
	state := "off"
	if *x.field(&s) {
		state = "on"
	}
	answer(x.label + ": " + state) // first: a press waits for its answer, the edit may pace
	if in.MessageID != 0 {
		r.add(&chat.Message{Edit: in.MessageID, Text: settingsText(), Keyboard: settingsKeyboard(&s)})
	}
}
