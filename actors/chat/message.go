package chat

import (
	json "github.com/goccy/go-json"
)

// Message is one Bot API call the outbox makes for a chat: a text (HTML
// parse mode), a photo with its caption, an album, an edit of an earlier
// message, or the answer to a button press. It is stored as JSON in the
// outbox, so its fields are the durable format: add, never rename.
type Message struct {
	ID   string `json:"id"`   // unique outbox id
	Chat int64  `json:"chat"` // Telegram chat id
	// Topic names the forum topic (a handle, or tweetalerts.ContractsTopic);
	// TopicTitle is its title if it must be created. Ignored outside forums.
	Topic      string `json:"topic,omitempty"`
	TopicTitle string `json:"topic_title,omitempty"`
	// Thread, when set, is the forum thread to send in (an answer goes to
	// the topic the command came from); it wins over Topic.
	Thread int64 `json:"thread,omitempty"`
	// Text is HTML (escaped by the formatter); a caption when Photos is set.
	Text string `json:"text,omitempty"`
	// Photos: one is sent with sendPhoto, several (up to 10) as an album.
	Photos []string `json:"photos,omitempty"`
	// Keyboard is an inline keyboard: rows of buttons.
	Keyboard [][]Button `json:"keyboard,omitempty"`
	// Edit, when set, edits that message's text instead of sending one.
	Edit int64 `json:"edit,omitempty"`
	// Callback, when set, answers that callback query (Text is the toast).
	Callback string `json:"callback,omitempty"`
	// Alert marks an alert (coalesced into a digest when a chat falls far
	// behind); command answers never are.
	Alert bool `json:"alert,omitempty"`
	// URL is an alert's post URL (the digest lists them).
	URL string `json:"url,omitempty"`
	// DetectedAt is when the alert's source was detected (epoch ms), for the
	// ingest-to-send latency.
	DetectedAt int64 `json:"detected_at,omitempty"`
	// Secret marks a message that holds a secret (a new API key): it is
	// never written to the store, only sent from memory, so a crash before
	// the send loses it (the user asks again) rather than leave the key
	// readable in the outbox or its backups.
	Secret bool `json:"-"`
}

// Button is an inline-keyboard button that sends Data back as a callback.
type Button struct {
	Text string `json:"text"`
	Data string `json:"data"`
}

// Encode is the outbox body of m.
func (m *Message) Encode() []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic("encode chat message: " + err.Error())
	}
	return b
}

// DecodeMessage reads an outbox body.
func DecodeMessage(b []byte) (*Message, error) {
	m := &Message{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, err
	}
	return m, nil
}
