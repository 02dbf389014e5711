package tweetalerts

import (
	"testing"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

const solana = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"

func TestChatRoute(t *testing.T) {
	post := func(typ, text string) *protocol.Tweet {
		return &protocol.Tweet{ID: "1", Type: typ, Text: text, Author: protocol.TweetAuthor{Handle: "@Whale"}}
	}
	base := func() ChatRecipient {
		return ChatRecipient{Account: "a", Prefs: persistence.HandlePrefs{AccountID: "a", Handle: "whale"},
			Settings: persistence.DefaultTweetAlertsSettings("a")}
	}
	cases := []struct {
		name  string
		set   func(r *ChatRecipient)
		post  *protocol.Tweet
		send  bool
		topic string
	}{
		{"defaults: a topic per handle", func(*ChatRecipient) {}, post("post", "gm"), true, "whale"},
		{"auto_topics off", func(r *ChatRecipient) { r.Settings.AutoTopics = false }, post("post", "gm"), true, ""},
		{"paused", func(r *ChatRecipient) { r.Settings.NotificationsPaused = true }, post("post", "gm"), false, ""},
		{"muted", func(r *ChatRecipient) { r.Prefs.Muted = true }, post("post", "gm"), false, ""},
		{"exclude_replies setting", func(r *ChatRecipient) { r.Settings.ExcludeReplies = true }, post("reply", "gm"), false, ""},
		{"exclude_replies filter", func(r *ChatRecipient) { r.Prefs.ExcludeReplies = true }, post("reply", "gm"), false, ""},
		{"exclude_replies keeps posts", func(r *ChatRecipient) { r.Settings.ExcludeReplies = true }, post("post", "gm"), true, "whale"},
		{"exclude_reposts setting", func(r *ChatRecipient) { r.Settings.ExcludeReposts = true }, post("repost", "gm"), false, ""},
		{"exclude_reposts filter", func(r *ChatRecipient) { r.Prefs.ExcludeReposts = true }, post("repost", "gm"), false, ""},
		{"exclude_quotes filter", func(r *ChatRecipient) { r.Prefs.ExcludeQuotes = true }, post("quote", "gm"), false, ""},
		{"contracts_only without one", func(r *ChatRecipient) { r.Settings.ContractsOnly = true }, post("post", "gm"), false, ""},
		{"contracts_only with one", func(r *ChatRecipient) { r.Settings.ContractsOnly = true }, post("post", "ca "+solana), true, "whale"},
		{"contract_topic", func(r *ChatRecipient) { r.Settings.ContractTopic = true }, post("post", "ca "+solana), true, ContractsTopic},
		{"contract_topic, no contract", func(r *ChatRecipient) { r.Settings.ContractTopic = true }, post("post", "gm"), true, "whale"},
		{"keyword present, any case", func(r *ChatRecipient) { r.Prefs.Keywords = []string{"x", "Moon"} }, post("post", "to the MOON"), true, "whale"},
		{"keyword absent", func(r *ChatRecipient) { r.Prefs.Keywords = []string{"moon"} }, post("post", "gm"), false, ""},
	}
	for _, c := range cases {
		r := base()
		c.set(&r)
		send, topic := ChatRoute(&r, c.post)
		if send != c.send || topic != c.topic {
			t.Errorf("%s: send %v topic %q, want %v %q", c.name, send, topic, c.send, c.topic)
		}
	}
}

func TestContractInOCR(t *testing.T) {
	ocr := "CA " + solana
	r := ChatRecipient{Settings: persistence.TweetAlertsSettings{ContractsOnly: true}}
	if send, _ := ChatRoute(&r, &protocol.Tweet{Type: "post", Text: "image", OCRText: &ocr}); !send {
		t.Error("a contract in the OCR text counts")
	}
}
