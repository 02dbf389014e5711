package chat

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	json "github.com/goccy/go-json"
)

// Products is the chat channel of the spec-3 products that have one: ECA
// matches and Search Alerts (the account topics their actors publish on)
// and Trending (the product topic, filtered by each account's
// subscriptions from PUT /v1/trending/subscriptions). It subscribes on the
// delivery hub like a socket does; Deliver only tells the singleton actor
// "chat-products", which formats and queues in the outbox.
type Products struct {
	ref *kit.Ref
	hub *delivery.Hub

	mu      sync.Mutex
	subs    map[delivery.Topic]*productSub // the account topics followed
	callers map[callerKey]*productSub      // the PumpFun callers followed
}

// ProductsDeps are what the products' chat channel reads.
type ProductsDeps struct {
	Hub    *delivery.Hub
	Outbox *Outbox
	// Subscribed reports whether account has a live subscription of p.
	Subscribed func(account string, p protocol.Product) bool
	// TrendingCategories reads an account's subscribed categories.
	TrendingCategories func(ctx context.Context, account string) ([]string, error)
	Log                *slog.Logger
}

// accountProducts are the products whose frames come on account topics.
var accountProducts = []protocol.Product{protocol.ProductECA, protocol.ProductSA}

// StartProducts spawns the actor and follows every account with a chat.
func StartProducts(ctx context.Context, k *kit.Kit, d ProductsDeps) (*Products, error) {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	ref, err := k.Spawn(ctx, "chat-products", func() actor.Actor {
		return &productsActor{d: d, cats: map[string]cachedCats{}}
	})
	if err != nil {
		return nil, err
	}
	p := &Products{ref: ref, hub: d.Hub, subs: map[delivery.Topic]*productSub{}, callers: map[callerKey]*productSub{}}
	d.Hub.Subscribe(delivery.ProductTopic(protocol.ProductTrending), &productSub{p: p, product: protocol.ProductTrending})
	for _, acct := range d.Outbox.chats.Accounts() {
		p.Follow(acct)
	}
	return p, nil
}

// Follow subscribes to account's product topics (a chat of it was linked).
func (p *Products) Follow(account string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range accountProducts {
		t := delivery.AccountTopic(pr, account)
		if _, ok := p.subs[t]; !ok {
			s := &productSub{p: p, account: account, product: pr}
			p.subs[t] = s
			p.hub.Subscribe(t, s)
		}
	}
}

// callerKey is a caller followed for an account.
type callerKey struct{ account, wallet string }

// FollowCaller subscribes to a PumpFun caller's wallet topic for account:
// its callouts go to the account's chats.
func (p *Products) FollowCaller(account, wallet string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := callerKey{account, wallet}
	if _, ok := p.callers[k]; ok {
		return
	}
	s := &productSub{p: p, account: account, product: protocol.ProductPumpFun, mask: pumpfun.Mask(pumpfun.AlertCallouts)}
	p.callers[k] = s
	p.hub.Subscribe(delivery.WalletTopic(wallet), s)
}

// UnfollowCaller ends FollowCaller.
func (p *Products) UnfollowCaller(account, wallet string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := callerKey{account, wallet}
	if s, ok := p.callers[k]; ok {
		delete(p.callers, k)
		p.hub.Unsubscribe(delivery.WalletTopic(wallet), s)
	}
}

// Stop unsubscribes and stops the actor once it handled what it was told.
func (p *Products) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	for t, s := range p.subs {
		p.hub.Unsubscribe(t, s)
	}
	p.subs = map[delivery.Topic]*productSub{}
	for k, s := range p.callers {
		p.hub.Unsubscribe(delivery.WalletTopic(k.wallet), s)
	}
	p.callers = map[callerKey]*productSub{}
	p.mu.Unlock()
	for _, s := range p.hub.Subscribers(delivery.ProductTopic(protocol.ProductTrending)) {
		if ps, ok := s.(*productSub); ok && ps.p == p {
			p.hub.Unsubscribe(delivery.ProductTopic(protocol.ProductTrending), s)
		}
	}
	_ = p.ref.Stop()
}

// productSub is one hub subscription: an account's topic of a product, or
// the Trending product topic (account "").
type productSub struct {
	p       *Products
	account string
	product protocol.Product
	mask    uint8 // only frames of this mask (PumpFun callouts); 0: every frame
}

// NodeLocal keeps the frames other nodes of a cluster published from it:
// their own bridge turns them into chat messages.
func (*productSub) NodeLocal() {}

// productFrame is a frame for the actor: a socket frame heard on the hub,
// or an event told directly (kind and data).
type productFrame struct {
	account string
	product protocol.Product
	frame   []byte
	kind    string
	data    []byte
}

// Deliver never blocks: it tells the actor.
func (s *productSub) Deliver(e *delivery.Event) {
	if s.mask != 0 && e.Mask&s.mask == 0 {
		return
	}
	if f := e.ProductFrame(); f != nil {
		s.p.ref.Tell(&productFrame{account: s.account, product: s.product, frame: f})
	}
}

// ChatEvent takes an event that goes to chats but not to sockets (Community
// Watch follows and digests: cw.ChatSink). It never blocks.
func (p *Products) ChatEvent(account string, pr protocol.Product, kind string, data []byte) {
	if p != nil {
		p.ref.Tell(&productFrame{account: account, product: pr, kind: kind, data: data})
	}
}

type cachedCats struct {
	cats []string
	at   time.Time
}

// trendingCacheFor is how long an account's Trending categories are reused.
const trendingCacheFor = 10 * time.Second

type productsActor struct {
	d    ProductsDeps
	cats map[string]cachedCats
}

func (a *productsActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *productFrame:
		a.frame(m)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("chat products: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

// frameEnvelope is a product socket frame: {"type", "data"}.
type frameEnvelope struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

func (a *productsActor) frame(m *productFrame) {
	env := frameEnvelope{Type: m.kind, Data: m.data}
	if m.frame != nil && json.Unmarshal(m.frame, &env) != nil {
		return
	}
	text, key := FormatProductFrame(m.product, env.Type, env.Data)
	if text == "" {
		return
	}
	var accounts []string
	if m.account != "" {
		accounts = []string{m.account}
	} else {
		accounts = a.trendingAccounts(env.Data)
	}
	var ms []*Message
	for _, acct := range accounts {
		if !a.d.Subscribed(acct, m.product) {
			continue
		}
		for _, ch := range a.d.Outbox.chats.OfAccount(acct) {
			ms = append(ms, &Message{ID: string(m.product) + "-" + strconv.FormatInt(ch.ChatID, 10) + "-" + key,
				Chat: ch.ChatID, Text: text, Alert: true, DetectedAt: time.Now().UnixMilli()})
		}
	}
	if len(ms) == 0 {
		return
	}
	ctx, cancel := storeCtx()
	defer cancel()
	if err := a.d.Outbox.Queue(ctx, ms, 0); err != nil {
		a.d.Log.Error("chat products: queue", "product", m.product, "err", err)
	}
}

// trendingAccounts are the accounts with a chat subscribed to the frame's
// category.
func (a *productsActor) trendingAccounts(data []byte) []string {
	var d struct {
		Category string `json:"category"`
	}
	if json.Unmarshal(data, &d) != nil || d.Category == "" {
		return nil
	}
	var out []string
	now := time.Now()
	for _, acct := range a.d.Outbox.chats.Accounts() {
		cc, ok := a.cats[acct]
		if !ok || now.Sub(cc.at) > trendingCacheFor {
			ctx, cancel := storeCtx()
			cats, err := a.d.TrendingCategories(ctx, acct)
			cancel()
			if err != nil {
				a.d.Log.Warn("chat products: trending categories", "err", err)
				continue
			}
			cc = cachedCats{cats: cats, at: now}
			a.cats[acct] = cc
		}
		if slices.Contains(cc.cats, d.Category) {
			out = append(out, acct)
		}
	}
	return out
}

// FormatProductFrame is the chat message of a product event of type kind
// with its data, and a key that names the event (for the outbox id); ""
// when it is not one the chat shows.
func FormatProductFrame(p protocol.Product, kind string, data []byte) (text, key string) {
	var b strings.Builder
	switch p {
	case protocol.ProductCW:
		return formatCW(kind, data)
	case protocol.ProductPumpFun:
		var d pumpfun.Callout
		if json.Unmarshal(data, &d) != nil || d.CallerWallet == "" || d.Mint == "" {
			return "", ""
		}
		caller := d.CallerUsername
		if caller == "" {
			caller = d.CallerWallet
		}
		b.WriteString(Bold("Callout") + " by " + Escape(caller))
		if d.Milestone != nil {
			b.WriteString(" · " + Bold(*d.Milestone))
			fmt.Fprintf(&b, " (%.1fx)", d.Multiplier)
		}
		b.WriteString("\n" + Escape(d.TokenName) + " (" + Escape(d.TokenSymbol) + ")")
		fmt.Fprintf(&b, "\nMarket cap %.0f (called at %.0f)", d.MarketCap, d.CalloutMcap)
		if d.Thesis != "" {
			b.WriteString("\n<i>" + Escape(Cut(d.Thesis, 500)) + "</i>")
		}
		b.WriteString("\nMint: <code>" + Escape(d.Mint) + "</code>\n" + Link("https://pump.fun/coin/"+d.Mint, "pump.fun"))
		ms := ""
		if d.Milestone != nil {
			ms = *d.Milestone
		}
		return b.String(), d.CallerWallet + "-" + d.Mint + "-" + d.EventType + ms
	case protocol.ProductECA:
		var d struct {
			Token struct {
				Name, Symbol, Mint, Creator string
			} `json:"token"`
			MatchType string `json:"match_type"`
			MatchedAt string `json:"matched_at"`
			Entry     struct {
				ID int64 `json:"id"`
			} `json:"watchlist_entry"`
		}
		if json.Unmarshal(data, &d) != nil || d.Token.Mint == "" {
			return "", ""
		}
		b.WriteString(Bold("ECA match") + " · " + Escape(d.MatchType) + "\n")
		b.WriteString(Escape(d.Token.Name) + " (" + Escape(d.Token.Symbol) + ")\n")
		b.WriteString("Mint: <code>" + Escape(d.Token.Mint) + "</code>\n")
		b.WriteString("Creator: <code>" + Escape(d.Token.Creator) + "</code>\n")
		b.WriteString(Link("https://pump.fun/coin/"+d.Token.Mint, "pump.fun"))
		return b.String(), strconv.FormatInt(d.Entry.ID, 10) + "-" + d.Token.Mint + "-" + d.MatchType
	case protocol.ProductSA:
		var d struct {
			QueryID    int64  `json:"query_id"`
			QueryText  string `json:"query_text"`
			TweetID    string `json:"tweet_id"`
			FullText   string `json:"full_text"`
			ScreenName string `json:"screen_name"`
			TweetURL   string `json:"tweet_url"`
		}
		if json.Unmarshal(data, &d) != nil || d.TweetID == "" {
			return "", ""
		}
		b.WriteString(Bold("Search alert") + " · “" + Escape(Cut(d.QueryText, 200)) + "”\n")
		b.WriteString(Bold("@"+d.ScreenName) + ": " + Escape(Cut(d.FullText, 3000)) + "\n")
		b.WriteString(Link(d.TweetURL, d.TweetURL))
		return b.String(), strconv.FormatInt(d.QueryID, 10) + "-" + d.TweetID
	case protocol.ProductTrending:
		var d struct {
			Category string                 `json:"category"`
			Tweet    protocol.TrendingTweet `json:"tweet"`
		}
		if json.Unmarshal(data, &d) != nil || d.Tweet.TweetID == "" {
			return "", ""
		}
		b.WriteString(Bold("Trending · "+d.Category) + "\n")
		b.WriteString(Bold("@"+d.Tweet.AuthorScreenName) + ": " + Escape(Cut(d.Tweet.FullText, 3000)) + "\n")
		fmt.Fprintf(&b, "♥ %d · 🔁 %d · 💬 %d\n", d.Tweet.LikeCount, d.Tweet.RetweetCount, d.Tweet.ReplyCount)
		b.WriteString(Link(d.Tweet.TweetURL, d.Tweet.TweetURL))
		return b.String(), d.Category + "-" + d.Tweet.TweetID
	}
	return "", ""
}

// maxDigestLines bounds the followers one digest message lists.
const maxDigestLines = 50

func formatCW(kind string, data []byte) (text, key string) {
	var b strings.Builder
	switch kind {
	case "follow_change":
		var d struct {
			ScreenName string `json:"screen_name"`
			Followed   struct {
				ID         string  `json:"id"`
				ScreenName string  `json:"screen_name"`
				Name       *string `json:"name"`
				Bio        *string `json:"bio"`
			} `json:"followed"`
			DetectedAt string `json:"detected_at"`
		}
		if json.Unmarshal(data, &d) != nil || d.Followed.ScreenName == "" {
			return "", ""
		}
		b.WriteString(Bold("@"+d.ScreenName) + " followed " + Bold("@"+d.Followed.ScreenName))
		if d.Followed.Name != nil {
			b.WriteString(" (" + Escape(*d.Followed.Name) + ")")
		}
		if d.Followed.Bio != nil && *d.Followed.Bio != "" {
			b.WriteString("\n<i>" + Escape(Cut(*d.Followed.Bio, 300)) + "</i>")
		}
		url := "https://x.com/" + d.Followed.ScreenName
		b.WriteString("\n" + Link(url, url))
		return b.String(), "follow-" + d.ScreenName + "-" + d.Followed.ID + "-" + d.DetectedAt
	case "new_followers":
		var d struct {
			ScreenName string `json:"screen_name"`
			Followers  []struct {
				ScreenName string  `json:"screen_name"`
				Name       *string `json:"name"`
			} `json:"followers"`
			Count      int    `json:"count"`
			DetectedAt string `json:"detected_at"`
		}
		if json.Unmarshal(data, &d) != nil || len(d.Followers) == 0 {
			return "", ""
		}
		b.WriteString(Bold(fmt.Sprintf("%d new followers of @%s", d.Count, d.ScreenName)))
		for i, f := range d.Followers {
			if i == maxDigestLines {
				fmt.Fprintf(&b, "\n… and %d more", len(d.Followers)-i)
				break
			}
			b.WriteString("\n• @" + Escape(f.ScreenName))
			if f.Name != nil {
				b.WriteString(" (" + Escape(*f.Name) + ")")
			}
		}
		return b.String(), "followers-" + d.ScreenName + "-" + d.DetectedAt
	}
	return "", ""
}
