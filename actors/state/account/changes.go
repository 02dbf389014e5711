package account

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Changes is a set of optional subscription fields (CONTRACT.md section 2). A
// nil pointer leaves the field as it is; ExpiresAt set with a nil inner value
// clears the end date.
type Changes struct {
	Plan               *string
	Modules            *[]string
	MaxHandles         *int
	MaxTweets          *int
	MaxWallets         *int
	CASearchDailyLimit **int
	LateDelivery       *bool
	ExpiresAt          **time.Time
}

// ErrInvalid wraps a validation failure of Changes; its text is for the client.
var ErrInvalid = errors.New("invalid")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// defaults returns a new subscription of product p with the product's default plan.
func defaults(account string, p protocol.Product, now time.Time) persistence.Subscription {
	s := persistence.Subscription{AccountID: account, Product: p, CreatedAt: now, UpdatedAt: now}
	switch p {
	case protocol.ProductTweetAlerts:
		s.Plan = "free"
	case protocol.ProductB2B:
		s.Plan = "starter"
		s.Modules = slices.Clone(protocol.B2BTiers["starter"])
		s.MaxHandles = protocol.B2BDefaultHandles["starter"]
	case protocol.ProductCW, protocol.ProductCT:
		s.Plan, s.MaxHandles = "standard", protocol.HandlePlanSizes[0]
	case protocol.ProductET:
		s.Plan, s.MaxTweets = "standard", protocol.TweetPlanSizes[0]
	case protocol.ProductPumpFun:
		s.Plan, s.MaxWallets = "standard", protocol.WalletPlanSizes[0]
	default:
		s.Plan = "standard"
	}
	return s
}

// Apply validates c against product s.Product and applies it to s.
func (c *Changes) Apply(s *persistence.Subscription) error {
	p := s.Product
	isDT := p == protocol.ProductB2B
	if c.Plan != nil {
		if err := applyPlan(s, *c.Plan, c.Modules == nil, c.MaxHandles == nil); err != nil {
			return err
		}
	}
	if c.Modules != nil {
		if !isDT {
			return invalidf("modules applies to dt only")
		}
		for _, m := range *c.Modules {
			if !slices.Contains(protocol.B2BModules, m) {
				return invalidf("unknown module %q (one of %v)", m, protocol.B2BModules)
			}
		}
		s.Modules = dedupe(*c.Modules)
	}
	if c.MaxHandles != nil {
		n := *c.MaxHandles
		switch p {
		case protocol.ProductB2B:
			if n < 1 || n > protocol.MaxB2BHandles {
				return invalidf("max_handles must be 1 to %d", protocol.MaxB2BHandles)
			}
		case protocol.ProductCW, protocol.ProductCT:
			if !protocol.ValidSize(protocol.HandlePlanSizes, n) {
				return invalidf("max_handles must be one of %v", protocol.HandlePlanSizes)
			}
		default:
			return invalidf("max_handles applies to dt, cw and ct only")
		}
		s.MaxHandles = n
	}
	if c.MaxTweets != nil {
		if p != protocol.ProductET {
			return invalidf("max_tweets applies to et only")
		}
		if !protocol.ValidSize(protocol.TweetPlanSizes, *c.MaxTweets) {
			return invalidf("max_tweets must be one of %v", protocol.TweetPlanSizes)
		}
		s.MaxTweets = *c.MaxTweets
	}
	if c.MaxWallets != nil {
		if p != protocol.ProductPumpFun {
			return invalidf("max_wallets applies to pf only")
		}
		if !protocol.ValidSize(protocol.WalletPlanSizes, *c.MaxWallets) {
			return invalidf("max_wallets must be one of %v", protocol.WalletPlanSizes)
		}
		s.MaxWallets = *c.MaxWallets
	}
	if c.CASearchDailyLimit != nil {
		if !isDT {
			return invalidf("ca_search_daily_limit applies to dt only")
		}
		if v := *c.CASearchDailyLimit; v != nil && *v < 1 {
			return invalidf("ca_search_daily_limit must be positive, or null for no CA Search")
		}
		s.CASearchDailyLimit = *c.CASearchDailyLimit
	}
	if c.LateDelivery != nil {
		if !isDT {
			return invalidf("late_delivery applies to dt only")
		}
		s.LateDelivery = *c.LateDelivery
	}
	if c.ExpiresAt != nil {
		if t := *c.ExpiresAt; t != nil {
			u := t.UTC()
			s.ExpiresAt = &u
		} else {
			s.ExpiresAt = nil
		}
	}
	return nil
}

// applyPlan sets the plan; for dt a tier change also resets modules and the
// handle ceiling to the tier's defaults unless the same change sets them.
func applyPlan(s *persistence.Subscription, plan string, resetModules, resetHandles bool) error {
	switch s.Product {
	case protocol.ProductTweetAlerts:
		if _, ok := protocol.FindTweetAlertsPlan(plan); !ok {
			return invalidf("unknown xg plan %q", plan)
		}
	case protocol.ProductB2B:
		mods, ok := protocol.B2BTiers[plan]
		if !ok {
			return invalidf("unknown dt plan %q (starter, pro or enterprise)", plan)
		}
		if resetModules {
			s.Modules = slices.Clone(mods)
		}
		if resetHandles {
			s.MaxHandles = protocol.B2BDefaultHandles[plan]
		}
	default:
		if plan == "" {
			return invalidf("plan must not be empty")
		}
	}
	s.Plan = plan
	return nil
}

func dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	for _, m := range in {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// Issued is the answer to Issue: the key is in clear here and nowhere else.
type Issued struct {
	Key string
	Sub persistence.Subscription
}

// Issue makes a key for (account, p). An empty account makes a new account.
// An earlier key of the same pair is revoked at once. The subscription is
// created with the product's defaults, or the existing one is kept, and c is
// applied to it.
func (r *Registry) Issue(ctx context.Context, accountID string, p protocol.Product, c Changes) (Issued, error) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	now := r.now().UTC()
	if accountID == "" {
		accountID = NewAccountID()
		if _, err := r.store.CreateAccount(ctx, accountID, now); err != nil {
			return Issued{}, err
		}
	} else if _, err := r.store.GetAccount(ctx, accountID); err != nil {
		return Issued{}, err
	}
	sub := defaults(accountID, p, now)
	if cur, ok := r.Subscription(accountID, p); ok {
		sub = cloneSub(cur)
	}
	if err := c.Apply(&sub); err != nil {
		return Issued{}, err
	}
	sub.UpdatedAt = now
	if err := r.store.PutSubscription(ctx, sub); err != nil {
		return Issued{}, err
	}
	key := NewKey(p)
	h := HashKey(key)
	rec := persistence.APIKey{Hash: h[:], Product: p, AccountID: accountID, State: persistence.KeyActive, CreatedAt: now, UpdatedAt: now}
	if err := r.store.IssueKey(ctx, rec); err != nil {
		return Issued{}, err
	}
	r.mu.Lock()
	for _, e := range r.keys {
		if e.key.AccountID == accountID && e.key.Product == p && e.key.State != persistence.KeyRevoked {
			k := e.key
			k.State, k.UpdatedAt = persistence.KeyRevoked, now
			e.key = k
		}
	}
	s := sub
	r.subs[subKey{accountID, p}] = &s
	r.putKeyLocked(rec)
	r.mu.Unlock()
	r.changed()
	return Issued{Key: key, Sub: sub}, nil
}

// Change applies c to the existing subscription of (account, p).
func (r *Registry) Change(ctx context.Context, accountID string, p protocol.Product, c Changes) (persistence.Subscription, error) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	cur, ok := r.Subscription(accountID, p)
	if !ok {
		return persistence.Subscription{}, persistence.ErrNotFound
	}
	sub := cloneSub(cur)
	if err := c.Apply(&sub); err != nil {
		return persistence.Subscription{}, err
	}
	sub.UpdatedAt = r.now().UTC()
	if err := r.store.PutSubscription(ctx, sub); err != nil {
		return persistence.Subscription{}, err
	}
	r.mu.Lock()
	r.subs[subKey{accountID, p}] = &sub
	r.mu.Unlock()
	r.changed()
	return sub, nil
}

// Deactivate turns key off for good (key_deactivated afterwards).
func (r *Registry) Deactivate(ctx context.Context, key string) error {
	return r.DeactivateHash(ctx, HashKey(key))
}

// DeactivateHash is Deactivate for a key known by its hash (the operator
// console lists keys by hash; the clear key is shown once, at issue).
func (r *Registry) DeactivateHash(ctx context.Context, h KeyHash) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.RLock()
	e := r.keys[h]
	r.mu.RUnlock()
	if e == nil || e.key.State == persistence.KeyRevoked {
		return persistence.ErrNotFound
	}
	k, err := r.store.SetKeyState(ctx, h[:], persistence.KeyDeactivated, r.now().UTC())
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.putKeyLocked(k)
	r.mu.Unlock()
	r.changed()
	return nil
}

// cloneSub copies a subscription deeply, so the published one stays immutable.
func cloneSub(s *persistence.Subscription) persistence.Subscription {
	c := *s
	c.Modules = slices.Clone(s.Modules)
	if s.CASearchDailyLimit != nil {
		v := *s.CASearchDailyLimit
		c.CASearchDailyLimit = &v
	}
	if s.ExpiresAt != nil {
		t := *s.ExpiresAt
		c.ExpiresAt = &t
	}
	return c
}

// EnsureAccount creates account id if it does not exist yet.
func (r *Registry) EnsureAccount(ctx context.Context, id string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if _, err := r.store.GetAccount(ctx, id); err == nil {
		return nil
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	_, err := r.store.CreateAccount(ctx, id, r.now().UTC())
	return err
}
