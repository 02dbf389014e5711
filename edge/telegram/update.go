package telegram

import (
	json "github.com/goccy/go-json"
	"github.com/mymmrac/telego"
)

// Incoming is what the bot reads of one update: a message, a button press,
// or a change of the bot's own membership in a chat.
type Incoming struct {
	UpdateID  int64
	ChatID    int64
	ChatType  string // private, group, supergroup, channel
	Forum     bool
	Thread    int64 // the forum topic a message was sent in (0: none)
	UserID    int64 // the sender; 0 when unknown
	Username  string
	Text      string
	MessageID int64 // the message, or the message whose button was pressed
	// CallbackID and CallbackData are set for a button press.
	CallbackID   string
	CallbackData string
	// Member is the bot's new status in the chat for a my_chat_member
	// update (member, administrator, left, kicked, ...).
	Member string
}

// FromUpdate reads u; ok is false for an update the bot does not handle.
func FromUpdate(u *telego.Update) (in Incoming, ok bool) {
	in.UpdateID = int64(u.UpdateID)
	switch {
	case u.Message != nil:
		m := u.Message
		in.ChatID, in.ChatType, in.Forum = m.Chat.ID, m.Chat.Type, m.Chat.IsForum
		if m.From != nil {
			in.UserID, in.Username = m.From.ID, m.From.Username
		}
		in.Text, in.MessageID = m.Text, int64(m.MessageID)
		if m.IsTopicMessage {
			in.Thread = int64(m.MessageThreadID)
		}
		return in, in.ChatID != 0
	case u.CallbackQuery != nil:
		q := u.CallbackQuery
		in.UserID, in.Username = q.From.ID, q.From.Username
		in.CallbackID, in.CallbackData = q.ID, q.Data
		if q.Message != nil {
			c := q.Message.GetChat()
			in.ChatID, in.ChatType, in.Forum = c.ID, c.Type, c.IsForum
			in.MessageID = int64(q.Message.GetMessageID())
		}
		return in, in.CallbackID != ""
	case u.MyChatMember != nil:
		m := u.MyChatMember
		in.ChatID, in.ChatType, in.Forum = m.Chat.ID, m.Chat.Type, m.Chat.IsForum
		in.UserID, in.Username = m.From.ID, m.From.Username
		if m.NewChatMember != nil {
			in.Member = m.NewChatMember.MemberStatus()
		}
		return in, in.ChatID != 0 && in.Member != ""
	}
	return in, false
}

// DecodeUpdate reads one update as the Bot API sends it in getUpdates'
// result array.
func DecodeUpdate(b []byte) (Incoming, bool, error) {
	if err := checkKeys(b); err != nil { // as the client's transport does
		return Incoming{}, false, err
	}
	var u telego.Update
	if err := json.Unmarshal(b, &u); err != nil {
		return Incoming{}, false, err
	}
	in, ok := FromUpdate(&u)
	return in, ok, nil
}
