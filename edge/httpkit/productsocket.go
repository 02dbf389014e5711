package httpkit

import (
	"fmt"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// ProductSocketsPerAccount is how many WebSockets one account may hold on
// one spec-3 product (CONTRACT section 2).
const ProductSocketsPerAccount = 10

// ProductSocket serves GET /v1/<product>/ws?api_key= of product p: a bad key
// gets a plain-text 401 and an account already holding
// ProductSocketsPerAccount a plain-text 429, before the upgrade. scope says
// what the socket hears, read once, at connect.
func (k *Kit) ProductSocket(p protocol.Product, scope func(acct string) session.Scope) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		key := string(ctx.QueryArgs().Peek("api_key"))
		pr, reason := k.Accounts.Authenticate(key, p)
		if reason != account.OK {
			WritePlain(ctx, 401, "unauthorized: "+ReasonText(reason, &pr))
			return
		}
		sd := k.Sessions
		slot, ok := sd.Limits.Reserve(session.ProductQuota(p, pr.AccountID), ProductSocketsPerAccount)
		if !ok {
			WritePlain(ctx, 429, fmt.Sprintf("too many connections (max %d)", ProductSocketsPerAccount))
			return
		}
		t := k.Timings
		k.Upgrade(ctx, session.NewProduct(sd, p, key, pr.AccountID, scope(pr.AccountID), slot),
			ws.Options{ReadLimit: 4 << 10, QueueLen: 1024, WriteTimeout: t.WriteBlock, PingInterval: t.ProductPingInterval})
	}
}

// AccountScope is the scope of a socket that hears its account's topic in
// product p, for the items items returns (nil: every item).
func AccountScope(p protocol.Product, items func(acct string) []string) func(string) session.Scope {
	return func(acct string) session.Scope {
		sc := session.Scope{Topics: []delivery.Topic{delivery.AccountTopic(p, acct)}}
		if items != nil {
			sc.Items = items(acct)
		}
		return sc
	}
}

// ProductScope is the scope of a socket that hears everything of product p.
func ProductScope(p protocol.Product) func(string) session.Scope {
	return func(string) session.Scope {
		return session.Scope{Topics: []delivery.Topic{delivery.ProductTopic(p)}}
	}
}

// WalletScope is the scope of a /v1/pf/ws socket: the wallets of the
// account's list with the alert types watched for each.
func WalletScope(masks func(acct string) map[string]uint8) func(string) session.Scope {
	return func(acct string) session.Scope {
		m := masks(acct)
		sc := session.Scope{Topics: make([]delivery.Topic, 0, len(m)), Masks: m}
		for w := range m {
			sc.Topics = append(sc.Topics, delivery.WalletTopic(w))
		}
		return sc
	}
}
