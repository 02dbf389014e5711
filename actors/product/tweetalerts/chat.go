package tweetalerts

import (
	"strings"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// ContractsTopic is the forum topic of contract-address posts when an
// account's contract_topic setting is on.
const ContractsTopic = "#contracts" // no handle starts with #

// ChatRecipient is an account that tracks a handle actively (within its
// plan), with what spec 1 applies to its chat alerts.
type ChatRecipient struct {
	Account  string
	Prefs    persistence.HandlePrefs
	Settings persistence.TweetAlertsSettings
}

// ChatRecipients returns the accounts tracking handle within their plan's
// limit, with their prefs and settings (copies, read under one lock).
func (r *Registry) ChatRecipients(handle string, limit func(account string) int) []ChatRecipient {
	r.mu.RLock()
	defer r.mu.RUnlock()
	accts := r.watchers[handle]
	out := make([]ChatRecipient, 0, len(accts))
	for acct := range accts {
		if !r.activeLocked(acct, handle, limit(acct)) {
			continue
		}
		p, ok := r.prefs[prefKey{acct, handle}]
		if !ok {
			p = persistence.HandlePrefs{AccountID: acct, Handle: handle}
		}
		s, ok := r.settings[acct]
		if !ok {
			s = persistence.DefaultTweetAlertsSettings(acct)
		}
		out = append(out, ChatRecipient{Account: acct, Prefs: p, Settings: s})
	}
	return out
}

// ChatRoute applies spec 1's settings, keywords, mute and per-account
// filters to a post for one recipient: whether a chat alert goes out, and
// the forum topic it belongs to when the chat is a forum ("" = the general
// thread; ContractsTopic; or the author's handle).
func ChatRoute(rc *ChatRecipient, post *protocol.Tweet) (send bool, topic string) {
	s, p := &rc.Settings, &rc.Prefs
	if s.NotificationsPaused || p.Muted {
		return false, ""
	}
	reply, repost, quote := post.Type == protocol.PostTypeReply, post.Type == protocol.PostTypeRepost, post.Type == protocol.PostTypeQuote
	if (reply && (s.ExcludeReplies || p.ExcludeReplies)) || (repost && (s.ExcludeReposts || p.ExcludeReposts)) ||
		(quote && p.ExcludeQuotes) {
		return false, ""
	}
	hasCA := protocol.HasContract(post.Text) || (post.OCRText != nil && protocol.HasContract(*post.OCRText))
	if s.ContractsOnly && !hasCA {
		return false, ""
	}
	if len(p.Keywords) > 0 && !anyKeyword(post.Text, p.Keywords) {
		return false, ""
	}
	switch {
	case hasCA && s.ContractTopic:
		return true, ContractsTopic
	case s.AutoTopics:
		return true, protocol.NormalizeHandle(post.Author.Handle)
	}
	return true, ""
}

// anyKeyword reports whether text contains one of the keywords, ignoring
// case (spec 1: at least one must occur).
func anyKeyword(text string, kws []string) bool {
	lower := strings.ToLower(text)
	for _, k := range kws {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" && strings.Contains(lower, k) {
			return true
		}
	}
	return false
}
