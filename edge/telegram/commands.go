package telegram

import (
	"strings"
	"unicode"
)

// Command is one command of the bot's menu (CONTRACT.md section 4).
type Command struct {
	Name        string
	Description string
}

// Commands are registered with setMyCommands, in this order.
var Commands = []Command{
	{"start", "How to link your account"},
	{"link", "Link this chat to your account: /link <API_KEY>"},
	{"track", "Track accounts: /track <handle> [<handle> ...]"},
	{"untrack", "Stop tracking: /untrack <handle>"},
	{"list", "What you track"},
	{"keywords", "Keywords of a handle: /keywords <handle> [<word> ...] (none clears)"},
	{"mute", "Mute a handle: /mute <handle>"},
	{"unmute", "Unmute a handle: /unmute <handle>"},
	{"settings", "Notification settings"},
	{"apikey", "Reissue your API key (the old one stops at once)"},
	{"digest", "Community Watch new-follower digest: /digest <handle> on|off"},
	{"callers", "PumpFun callers: /callers, /callers add <wallet> [label], /callers remove <wallet>"},
	{"help", "What the bot can do"},
}

// maxCommandLen bounds what ParseCommand reads: a chat message is at most
// 4096 characters; anything longer is not a command of ours.
const maxCommandLen = 4096

// ParseCommand reads "/name[@bot] arg ..." from a message's text. It
// returns the command in lowercase and its arguments split on white space;
// ok is false when text is not a command, or is addressed to another bot
// (bot is this bot's username; empty accepts any).
func ParseCommand(text, bot string) (name string, args []string, ok bool) {
	if len(text) > maxCommandLen || !strings.HasPrefix(text, "/") {
		return "", nil, false
	}
	fields := strings.FieldsFunc(text, unicode.IsSpace)
	if len(fields) == 0 {
		return "", nil, false
	}
	head := fields[0][1:]
	if at := strings.IndexByte(head, '@'); at >= 0 {
		if to := head[at+1:]; bot != "" && !strings.EqualFold(to, bot) {
			return "", nil, false
		}
		head = head[:at]
	}
	if head == "" || len(head) > 32 {
		return "", nil, false
	}
	for _, r := range head {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", nil, false
		}
	}
	return strings.ToLower(head), fields[1:], true
}
