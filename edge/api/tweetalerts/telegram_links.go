package tweetalerts

import (
	"errors"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// The Telegram links of a subscription: which Telegram users may sign in to
// the dashboard as it (GET /v1/auth/telegram/links), and removing one
// (DELETE /v1/auth/telegram/links/{telegram_id}). With the session cookie
// or the key; a removal by cookie must come from the dashboard's origin.
// A removed user's sessions end at once (their token names the link, which
// each request checks), its open sockets at their next re-check; they
// cannot sign in again without linking anew.

type telegramLinkView struct {
	TelegramID int64     `json:"telegram_id"`
	LinkedAt   time.Time `json:"linked_at"`
}

type telegramLinksView struct {
	Links []telegramLinkView `json:"links"`
	Count int                `json:"count"`
}

func (a *api) listTelegramLinks(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	ls, err := a.d.Store.TelegramLinks(cctx, p.AccountID, p.Product)
	if err != nil {
		return 0, nil, err
	}
	v := telegramLinksView{Links: make([]telegramLinkView, 0, len(ls))}
	for _, l := range ls {
		v.Links = append(v.Links, telegramLinkView{TelegramID: l.TelegramID, LinkedAt: l.LinkedAt.UTC()})
	}
	v.Count = len(v.Links)
	return 200, v, nil
}

type unlinkedView struct {
	Deleted    bool  `json:"deleted"`
	TelegramID int64 `json:"telegram_id"`
}

func (a *api) unlinkTelegram(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id, err := strconv.ParseInt(httpkit.PathValue(ctx, "telegram_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, protocol.NotFound("no such Telegram link")
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	l, err := a.d.Store.TelegramLinkOf(cctx, id)
	if err == nil {
		err = a.d.Store.UnlinkTelegram(cctx, id, p.AccountID, p.Product)
	}
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("no such Telegram link")
	}
	if err != nil {
		return 0, nil, err
	}
	// Sockets opened through the link end at their next re-check (REST
	// requests and upgrades read the store and end at once).
	ttl := tweetalerts.DefaultSessionTTL
	if a.d.Sessions != nil {
		ttl = a.d.Sessions.TTL()
	}
	now := a.k.Now()
	a.revoked.add(linkRef{telegramID: id, gen: l.LinkedAt.UnixMilli()}, now.Add(ttl), now)
	return 200, unlinkedView{Deleted: true, TelegramID: id}, nil
}
