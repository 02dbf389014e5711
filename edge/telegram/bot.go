package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alertd/alertd/actors/chat"
	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Limits shared with the REST API (spec 1).
const (
	maxHandlesPerCommand = 25
	maxKeywords          = 20
	maxKeywordLen        = 50
)

// Accounts is what the bot does with keys and subscriptions
// (*account.Registry).
type Accounts interface {
	Authenticate(key string, accepts ...protocol.Product) (account.Principal, account.Reason)
	Subscription(account string, p protocol.Product) (*persistence.Subscription, bool)
	Issue(ctx context.Context, accountID string, p protocol.Product, c account.Changes) (account.Issued, error)
}

// Links is the Telegram link table the dashboard's Telegram sign-in reads.
type Links interface {
	LinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product, at time.Time) error
	TelegramLink(ctx context.Context, telegramID int64) (account string, product protocol.Product, err error)
}

// Deps are what the bot's commands act on: the same registries as the REST
// API, so a handle tracked here is in GET /v1/accounts and a setting changed
// by REST changes what the bot sends.
type Deps struct {
	Accounts Accounts
	Links    Links
	Registry *tweetalerts.Registry
	// CW is the Community Watch registry: /digest switches a watched
	// handle's new-follower digest (nil: no Community Watch).
	CW *cw.Registry
	// PF is the PumpFun target registry: /callers adds and removes callers
	// (targets with the callouts alert type); Callers follows their
	// callouts for the chats (nil: no PumpFun).
	PF      *pumpfun.Registry
	Callers Callers
	Dir     *directory.Directory
	Chats   *chat.Chats
	Now     func() time.Time
	Log     *slog.Logger
}

// Callers follows PumpFun callers for an account's chats (*chat.Products).
type Callers interface {
	FollowCaller(account, wallet string)
	UnfollowCaller(account, wallet string)
}

// Bot answers commands: Handle turns one update into the messages that
// answer it (queued by the poller together with the update's offset).
type Bot struct {
	d        Deps
	username string
}

// NewBot returns the command handler; username is the bot's own (commands
// addressed to another bot in a group are ignored).
func NewBot(d Deps, username string) *Bot {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &Bot{d: d, username: username}
}

// SetUsername sets the bot's username (from getMe) before the first update.
func (b *Bot) SetUsername(name string) { b.username = name }

// reply collects the answers of one update.
type reply struct {
	in  *Incoming
	out []*chat.Message
}

func (r *reply) add(m *chat.Message) {
	m.ID = "u" + strconv.FormatInt(r.in.UpdateID, 10) + "-" + strconv.Itoa(len(r.out))
	if m.Chat == 0 {
		m.Chat = r.in.ChatID
		if m.Edit == 0 && m.Callback == "" {
			m.Thread = r.in.Thread // answer in the topic the command came from
		}
	}
	r.out = append(r.out, m)
}

func (r *reply) say(format string, args ...any) {
	r.add(&chat.Message{Text: fmt.Sprintf(format, args...)})
}

// Handle answers one update. Errors of the store are answered in words too
// (the update counts as handled: asking again is the user's retry).
func (b *Bot) Handle(ctx context.Context, in Incoming) []*chat.Message {
	r := &reply{in: &in}
	switch {
	case in.CallbackID != "":
		b.callback(ctx, r)
	case in.Member != "":
		b.membership(ctx, r)
	default:
		name, args, ok := ParseCommand(in.Text, b.username)
		if !ok {
			return nil
		}
		b.command(ctx, r, name, args)
	}
	return r.out
}

func (b *Bot) command(ctx context.Context, r *reply, name string, args []string) {
	in := r.in
	switch name {
	case "start":
		b.start(ctx, r)
		return
	case "help":
		r.say("%s", helpText())
		return
	case "link":
		b.link(ctx, r, args)
		return
	}
	if !knownCommand(name) {
		if in.ChatType == "private" {
			r.say("Unknown command. /help lists what I can do.")
		}
		return
	}
	acct, ok := b.account(ctx, r)
	if !ok {
		return
	}
	switch name {
	case "apikey":
		b.apikey(ctx, r, acct)
		return
	case "digest":
		b.digest(ctx, r, acct, args)
		return
	case "callers":
		b.callers(ctx, r, acct, args)
		return
	}
	limit, ok := b.tweetAlerts(r, acct)
	if !ok {
		return
	}
	switch name {
	case "track":
		b.track(ctx, r, acct, limit, args)
	case "untrack":
		b.untrack(ctx, r, acct, limit, args)
	case "list":
		b.list(r, acct, limit)
	case "keywords":
		b.keywords(ctx, r, acct, args)
	case "mute", "unmute":
		b.mute(ctx, r, acct, args, name == "mute")
	case "settings":
		s := b.d.Registry.Settings(acct)
		r.add(&chat.Message{Text: settingsText(), Keyboard: settingsKeyboard(&s)})
	}
}

func knownCommand(name string) bool {
	for _, c := range Commands {
		if c.Name == name {
			return true
		}
	}
	return false
}

func helpText() string {
	var b strings.Builder
	b.WriteString(chat.Bold("alertd bot"))
	b.WriteString("\nAlerts of the accounts you track, here, with your keywords, mutes and settings.\n")
	for _, c := range Commands {
		b.WriteString("\n/" + c.Name + " — " + chat.Escape(c.Description))
	}
	return b.String()
}

// account returns the account linked to the sender.
func (b *Bot) account(ctx context.Context, r *reply) (string, bool) {
	if r.in.UserID == 0 {
		return "", false
	}
	acct, _, err := b.d.Links.TelegramLink(ctx, r.in.UserID)
	if errors.Is(err, persistence.ErrNotFound) {
		r.say("This Telegram account is not linked yet. Send /link &lt;API_KEY&gt; in a private chat with me.")
		return "", false
	}
	if err != nil {
		b.d.Log.Warn("telegram: read link", "err", err)
		r.say("Something went wrong on our side; try again in a minute.")
		return "", false
	}
	return acct, true
}

// tweetAlerts returns the account's tracked-account limit, or answers why
// there is none.
func (b *Bot) tweetAlerts(r *reply, acct string) (int, bool) {
	sub, ok := b.d.Accounts.Subscription(acct, protocol.ProductTweetAlerts)
	if !ok {
		r.say("Your account has no Tweet Alerts subscription, so there is nothing to track here.")
		return 0, false
	}
	if sub.Expired(b.d.Now()) {
		r.say("Your Tweet Alerts subscription has expired.")
		return 0, false
	}
	plan, _ := protocol.FindTweetAlertsPlan(sub.Plan)
	return plan.Accounts, true
}

func (b *Bot) start(ctx context.Context, r *reply) {
	in := r.in
	if in.ChatType != "private" {
		acct, _, err := b.d.Links.TelegramLink(ctx, in.UserID)
		if err != nil {
			r.say("Link your Telegram account first: send /link &lt;API_KEY&gt; to me in a private chat, then /start here.")
			return
		}
		if err := b.linkChat(ctx, in, acct); err != nil {
			b.d.Log.Warn("telegram: link chat", "err", err)
			r.say("Something went wrong on our side; try again in a minute.")
			return
		}
		r.say("This group now receives the alerts of your account.")
		return
	}
	if acct, p, err := b.d.Links.TelegramLink(ctx, in.UserID); err == nil {
		_ = b.linkChat(ctx, in, acct)
		r.say("You are linked (account %s, %s). /help lists the commands.", chat.Escape(acct), chat.Escape(string(p)))
		return
	}
	r.say("Welcome! Link your account with /link &lt;API_KEY&gt; (any of your keys), then /track the accounts you want alerts for. /help lists the commands.")
}

func (b *Bot) linkChat(ctx context.Context, in *Incoming, acct string) error {
	return b.d.Chats.Put(ctx, persistence.Chat{ChatID: in.ChatID, AccountID: acct, Kind: in.ChatType, Forum: in.Forum,
		LinkedAt: b.d.Now().UTC().Truncate(time.Millisecond)})
}

func (b *Bot) link(ctx context.Context, r *reply, args []string) {
	if len(args) != 1 {
		r.say("Usage: /link &lt;API_KEY&gt;")
		return
	}
	p, reason := b.d.Accounts.Authenticate(args[0], protocol.Products...)
	switch reason {
	case account.OK:
	case account.Expired:
		r.say("That key's subscription has expired.")
		return
	case account.Deactivated:
		r.say("That key has been deactivated.")
		return
	default:
		r.say("That key is not valid.")
		return
	}
	now := b.d.Now().UTC().Truncate(time.Millisecond)
	if err := b.d.Links.LinkTelegram(ctx, r.in.UserID, p.AccountID, p.Product, now); err != nil {
		b.d.Log.Warn("telegram: link", "err", err)
		r.say("Something went wrong on our side; try again in a minute.")
		return
	}
	if err := b.linkChat(ctx, r.in, p.AccountID); err != nil {
		b.d.Log.Warn("telegram: link chat", "err", err)
	}
	r.say("Linked ✅ Alerts of your account come to this chat. /track &lt;handle&gt; to add accounts; /help lists the rest.")
}

func (b *Bot) apikey(ctx context.Context, r *reply, acct string) {
	if r.in.ChatType != "private" {
		r.say("For your safety, ask for a new key in a private chat with me.")
		return
	}
	if _, ok := b.d.Accounts.Subscription(acct, protocol.ProductTweetAlerts); !ok {
		r.say("Your account has no Tweet Alerts subscription, so there is no xg_ key to reissue.")
		return
	}
	issued, err := b.d.Accounts.Issue(ctx, acct, protocol.ProductTweetAlerts, account.Changes{})
	if err != nil {
		b.d.Log.Warn("telegram: reissue key", "account", acct, "err", err)
		r.say("Something went wrong on our side; your key is unchanged.")
		return
	}
	b.d.Log.Info("key reissued from the bot", "account_id", acct, "product", protocol.ProductTweetAlerts)
	r.add(&chat.Message{Secret: true,
		Text: fmt.Sprintf("Your new API key (shown once; the old key stopped working):\n<code>%s</code>", chat.Escape(issued.Key))})
}

// handles normalizes handle arguments: ok is false (answered) when one is
// not a valid handle.
func handles(r *reply, args []string) ([]string, bool) {
	var out, bad []string
	seen := map[string]bool{}
	for _, a := range args {
		h := protocol.NormalizeHandle(a)
		if !protocol.ValidHandle(h) {
			bad = append(bad, a)
			continue
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	if len(bad) > 0 {
		r.say("Not valid handles: %s (1 to 50 letters, digits or underscores, with an optional leading @).", chat.Escape(strings.Join(bad, ", ")))
		return nil, false
	}
	return out, true
}

func at(hs []string) string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = "@" + h
	}
	return chat.Escape(strings.Join(out, ", "))
}

func (b *Bot) track(ctx context.Context, r *reply, acct string, limit int, args []string) {
	if len(args) == 0 {
		r.say("Usage: /track &lt;handle&gt; [&lt;handle&gt; ...]")
		return
	}
	if len(args) > maxHandlesPerCommand {
		r.say("At most %d handles per command.", maxHandlesPerCommand)
		return
	}
	hs, ok := handles(r, args)
	if !ok {
		return
	}
	eligible := func(h string) bool {
		e, ok := b.d.Dir.ByHandle(h)
		return ok && !e.User.Suspended
	}
	added, existing, total, err := b.d.Registry.Track(ctx, acct, hs, limit, eligible)
	if errors.Is(err, tweetalerts.ErrPlanFull) {
		r.say("Your plan's tracked-account limit is reached (%d/%d). /untrack one, or upgrade your plan.", total, limit)
		return
	}
	if err != nil {
		b.d.Log.Warn("telegram: track", "err", err)
		r.say("Something went wrong on our side; nothing was added.")
		return
	}
	var lines []string
	if len(added) > 0 {
		lines = append(lines, "Now tracking "+at(added)+".")
	}
	if len(existing) > 0 {
		lines = append(lines, "Already tracked: "+at(existing)+".")
	}
	skipped := make([]string, 0)
	for _, h := range hs {
		if !contains(added, h) && !contains(existing, h) {
			skipped = append(skipped, h)
		}
	}
	if len(skipped) > 0 {
		lines = append(lines, "Skipped (unknown, suspended, or beyond your plan): "+at(skipped)+".")
	}
	lines = append(lines, fmt.Sprintf("Tracking %d/%d.", total, limit))
	r.say("%s", strings.Join(lines, "\n"))
}

func contains(hs []string, h string) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// one reads the single handle argument of a command.
func one(r *reply, args []string, usage string) (string, bool) {
	if len(args) != 1 {
		r.say("Usage: %s", usage)
		return "", false
	}
	hs, ok := handles(r, args)
	if !ok {
		return "", false
	}
	return hs[0], true
}

func (b *Bot) untrack(ctx context.Context, r *reply, acct string, limit int, args []string) {
	h, ok := one(r, args, "/untrack &lt;handle&gt;")
	if !ok {
		return
	}
	total, err := b.d.Registry.Untrack(ctx, acct, h)
	if errors.Is(err, tweetalerts.ErrNotTracked) {
		r.say("You do not track @%s.", chat.Escape(h))
		return
	}
	if err != nil {
		b.d.Log.Warn("telegram: untrack", "err", err)
		r.say("Something went wrong on our side; nothing changed.")
		return
	}
	r.say("Stopped tracking @%s (%d/%d). Its keywords are kept for when you track it again.", chat.Escape(h), total, limit)
}

func (b *Bot) list(r *reply, acct string, limit int) {
	list := b.d.Registry.Tracked(acct)
	if len(list) == 0 {
		r.say("You track no accounts yet (0/%d). /track &lt;handle&gt; adds one.", limit)
		return
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s", chat.Bold(fmt.Sprintf("Tracking %d/%d", len(list), limit)))
	for i, t := range list {
		p := b.d.Registry.Prefs(acct, t.Handle)
		sb.WriteString("\n• @" + chat.Escape(t.Handle))
		var notes []string
		if i >= limit {
			notes = append(notes, "inactive: beyond your plan")
		}
		if p.Muted {
			notes = append(notes, "muted")
		}
		if len(p.Keywords) > 0 {
			notes = append(notes, "keywords: "+strings.Join(p.Keywords, ", "))
		}
		if p.ExcludeReplies {
			notes = append(notes, "no replies")
		}
		if p.ExcludeReposts {
			notes = append(notes, "no reposts")
		}
		if p.ExcludeQuotes {
			notes = append(notes, "no quotes")
		}
		if len(notes) > 0 {
			sb.WriteString(" — " + chat.Escape(strings.Join(notes, "; ")))
		}
	}
	r.say("%s", sb.String())
}

// tracked answers when acct does not track h.
func (b *Bot) tracked(r *reply, acct, h string) bool {
	if !b.d.Registry.IsTracked(acct, h) {
		r.say("You do not track @%s. /track it first.", chat.Escape(h))
		return false
	}
	return true
}

func (b *Bot) keywords(ctx context.Context, r *reply, acct string, args []string) {
	if len(args) == 0 {
		r.say("Usage: /keywords &lt;handle&gt; [&lt;word&gt; ...] (no words clears the list)")
		return
	}
	hs, ok := handles(r, args[:1])
	if !ok {
		return
	}
	h, words := hs[0], args[1:]
	if !b.tracked(r, acct, h) {
		return
	}
	if len(words) > maxKeywords {
		r.say("At most %d keywords per account.", maxKeywords)
		return
	}
	var kw []string
	seen := map[string]bool{}
	for _, w := range words {
		if utf8.RuneCountInString(w) > maxKeywordLen {
			r.say("Each keyword must be 1 to %d characters.", maxKeywordLen)
			return
		}
		if low := strings.ToLower(w); !seen[low] {
			seen[low] = true
			kw = append(kw, w)
		}
	}
	p, err := b.d.Registry.UpdatePrefs(ctx, acct, h, func(x *persistence.HandlePrefs) { x.Keywords = kw })
	if err != nil {
		b.d.Log.Warn("telegram: keywords", "err", err)
		r.say("Something went wrong on our side; nothing changed.")
		return
	}
	if len(p.Keywords) == 0 {
		r.say("Keywords of @%s cleared: every post alerts.", chat.Escape(h))
		return
	}
	r.say("Keywords of @%s: %s. Only posts with at least one of them alert.", chat.Escape(h), chat.Escape(strings.Join(p.Keywords, ", ")))
}

func (b *Bot) mute(ctx context.Context, r *reply, acct string, args []string, muted bool) {
	usage := "/unmute &lt;handle&gt;"
	if muted {
		usage = "/mute &lt;handle&gt;"
	}
	h, ok := one(r, args, usage)
	if !ok || !b.tracked(r, acct, h) {
		return
	}
	if _, err := b.d.Registry.UpdatePrefs(ctx, acct, h, func(x *persistence.HandlePrefs) { x.Muted = muted }); err != nil {
		b.d.Log.Warn("telegram: mute", "err", err)
		r.say("Something went wrong on our side; nothing changed.")
		return
	}
	if muted {
		r.say("@%s muted: still tracked, no alerts here until /unmute.", chat.Escape(h))
		return
	}
	r.say("@%s unmuted.", chat.Escape(h))
}

// membership follows the bot's own membership: added to a group by a
// linked user, the group is linked to that user's account; removed, the
// chat is marked blocked.
func (b *Bot) membership(ctx context.Context, r *reply) {
	in := r.in
	switch in.Member {
	case "left", "kicked":
		if err := b.d.Chats.SetBlocked(ctx, in.ChatID, true); err != nil {
			b.d.Log.Warn("telegram: mark chat blocked", "err", err)
		}
	case "member", "administrator":
		if in.ChatType == "private" {
			return
		}
		acct, _, err := b.d.Links.TelegramLink(ctx, in.UserID)
		if err != nil {
			r.say("Hello! A linked user can send /start here to receive their alerts in this group.")
			return
		}
		if err := b.linkChat(ctx, in, acct); err != nil {
			b.d.Log.Warn("telegram: link chat", "err", err)
			return
		}
		r.say("Hello! This group now receives the alerts of the account that added me.")
	}
}

// digest switches the Community Watch new-follower digest of a watched
// handle (spec 3: switched per handle in the bot).
func (b *Bot) digest(ctx context.Context, r *reply, acct string, args []string) {
	if len(args) != 2 || (args[1] != "on" && args[1] != "off") {
		r.say("Usage: /digest &lt;handle&gt; on|off (Community Watch new-follower digest)")
		return
	}
	sub, ok := b.d.Accounts.Subscription(acct, protocol.ProductCW)
	if !ok || b.d.CW == nil {
		r.say("Your account has no Community Watch subscription.")
		return
	}
	if sub.Expired(b.d.Now()) {
		r.say("Your Community Watch subscription has expired.")
		return
	}
	hs, ok := handles(r, args[:1])
	if !ok {
		return
	}
	on := args[1] == "on"
	_, err := b.d.CW.SetOptions(ctx, acct, hs[0], cw.TargetOptions{NewFollowers: on})
	if errors.Is(err, watchlist.ErrNotWatched) {
		r.say("You do not watch @%s in Community Watch.", chat.Escape(hs[0]))
		return
	}
	if err != nil {
		b.d.Log.Warn("telegram: digest", "err", err)
		r.say("Something went wrong on our side; nothing changed.")
		return
	}
	if on {
		r.say("New-follower digest of @%s on: new followers come here and to your webhook.", chat.Escape(hs[0]))
		return
	}
	r.say("New-follower digest of @%s off.", chat.Escape(hs[0]))
}
