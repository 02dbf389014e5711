package telegram

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alertd/alertd/actors/chat"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// callers lists, adds and removes PumpFun callers (spec 3: callers are
// managed in the bot): a caller is a wallet target with the callouts alert
// type, under the same plan ceiling as POST /v1/pf/targets.
func (b *Bot) callers(ctx context.Context, r *reply, acct string, args []string) {
	sub, ok := b.d.Accounts.Subscription(acct, protocol.ProductPumpFun)
	if !ok || b.d.PF == nil {
		r.say("Your account has no PumpFun subscription.")
		return
	}
	if sub.Expired(b.d.Now()) {
		r.say("Your PumpFun subscription has expired.")
		return
	}
	if len(args) == 0 {
		var lines []string
		for _, t := range b.d.PF.List(acct) {
			if slices.Contains(t.AlertTypes, pumpfun.AlertCallouts) {
				line := "• <code>" + chat.Escape(t.Wallet) + "</code>"
				if t.Label != "" {
					line += " " + chat.Escape(t.Label)
				}
				lines = append(lines, line)
			}
		}
		if len(lines) == 0 {
			r.say("No callers yet. /callers add &lt;wallet&gt; [label] adds one.")
			return
		}
		r.say("%s\n%s", chat.Bold("Your callers"), strings.Join(lines, "\n"))
		return
	}
	usage := "Usage: /callers, /callers add &lt;wallet&gt; [label], /callers remove &lt;wallet&gt;"
	if len(args) < 2 || (args[0] != "add" && args[0] != "remove") {
		r.say("%s", usage)
		return
	}
	wallet := args[1]
	if !protocol.IsSolanaAddress(wallet) {
		r.say("That is not a Solana address (32 to 44 base58 characters).")
		return
	}
	if args[0] == "remove" {
		if len(args) != 2 {
			r.say("%s", usage)
			return
		}
		i := slices.IndexFunc(b.d.PF.List(acct), func(t persistence.PFTarget) bool {
			return t.Wallet == wallet && slices.Contains(t.AlertTypes, pumpfun.AlertCallouts)
		})
		if i < 0 {
			r.say("That wallet is not one of your callers.")
			return
		}
		if err := b.d.PF.Remove(ctx, acct, wallet); err != nil && !errors.Is(err, persistence.ErrNotFound) {
			b.d.Log.Warn("telegram: remove caller", "err", err)
			r.say("Something went wrong on our side; nothing changed.")
			return
		}
		if b.d.Callers != nil {
			b.d.Callers.UnfollowCaller(acct, wallet)
		}
		r.say("Caller removed.")
		return
	}
	label := strings.Join(args[2:], " ")
	if utf8.RuneCountInString(label) > pumpfun.MaxLabel {
		r.say("The label is longer than %d characters.", pumpfun.MaxLabel)
		return
	}
	t := persistence.PFTarget{AccountID: acct, Wallet: wallet, Label: label, AlertTypes: []string{pumpfun.AlertCallouts},
		CreatedAt: b.d.Now().UTC().Truncate(time.Millisecond)}
	var le *pumpfun.LimitError
	switch err := b.d.PF.Add(ctx, t, sub.MaxWallets); {
	case errors.Is(err, persistence.ErrExists):
		r.say("That wallet is already on your PumpFun list.")
		return
	case errors.As(err, &le):
		r.say("Your plan's caller limit is reached (%d of %d).", le.Used, le.Limit)
		return
	case err != nil:
		b.d.Log.Warn("telegram: add caller", "err", err)
		r.say("Something went wrong on our side; nothing was added.")
		return
	}
	if b.d.Callers != nil {
		b.d.Callers.FollowCaller(acct, wallet)
	}
	r.say("Caller added: its callouts come to this chat.")
}
