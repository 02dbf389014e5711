// Package account owns client accounts, their product subscriptions and API
// keys. The Registry keeps every key and subscription in memory so that
// authentication never touches the store; changes are written through.
package account

import (
	"context"
	"crypto/subtle"
	"fmt"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Reason says why a key was refused (spec 1 "Errors"; each family maps it to
// its own code).
type Reason int

const (
	OK Reason = iota
	Missing
	InQuery
	Malformed
	Unknown
	Expired
	Deactivated
)

// B2BCode is the key_* code of a reason, used by /v1/dt and the B2B sockets.
func (r Reason) B2BCode() string {
	switch r {
	case Missing:
		return protocol.CodeKeyMissing
	case InQuery:
		return protocol.CodeKeyInQuery
	case Malformed:
		return protocol.CodeKeyMalformed
	case Expired:
		return protocol.CodeKeyExpired
	case Deactivated:
		return protocol.CodeKeyDeactivated
	}
	return protocol.CodeKeyUnknown
}

// Principal is an authenticated caller.
type Principal struct {
	AccountID string
	Product   protocol.Product // the product of the key used
	Sub       *persistence.Subscription
	Limiter   *Limiter // the account's REST windows, one per family
}

type keyEntry struct {
	hash  KeyHash
	key   persistence.APIKey
	limit *Limiter
}

type subKey struct {
	account string
	product protocol.Product
}

// Registry is the in-memory, write-through view of accounts, subscriptions
// and keys. It is safe for concurrent use.
type Registry struct {
	store persistence.AccountStore
	now   func() time.Time

	mu       sync.RWMutex
	keys     map[KeyHash]*keyEntry
	subs     map[subKey]*persistence.Subscription
	limiters map[string]*Limiter // per account
	rates    *rateShare          // the limiters' way to a cluster
	writeMu  sync.Mutex          // serialises changes so store and memory agree
	// onChange hears every change of keys and subscriptions made here (a
	// cluster tells the other nodes, which Reload); nil for one node.
	onChange func()
}

// OnChange makes f hear every key and subscription change this registry
// writes, after the store has it. f must not block. Set it before use.
func (r *Registry) OnChange(f func()) { r.onChange = f }

func (r *Registry) changed() {
	if r.onChange != nil {
		r.onChange()
	}
}

// Reload reads every key and subscription from the store again (another
// node changed some), serialised with this registry's own changes so that
// an older read never overwrites a newer write.
func (r *Registry) Reload(ctx context.Context) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	return r.Load(ctx)
}

// NewRegistry returns a registry over store; call Load before use.
func NewRegistry(store persistence.AccountStore, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	return &Registry{
		store:    store,
		now:      now,
		keys:     map[KeyHash]*keyEntry{},
		subs:     map[subKey]*persistence.Subscription{},
		limiters: map[string]*Limiter{},
		rates:    &rateShare{},
	}
}

// ShareRates makes every REST window tell counted when this node admitted
// a request in it (a cluster announces the window's Count to the other
// nodes). counted must not block. Set it before serving.
func (r *Registry) ShareRates(counted func(account string, family int)) { r.rates.counted = counted }

// Load reads every key and subscription from the store.
func (r *Registry) Load(ctx context.Context) error {
	keys, err := r.store.ListKeys(ctx)
	if err != nil {
		return fmt.Errorf("load keys: %w", err)
	}
	subs, err := r.store.ListSubscriptions(ctx)
	if err != nil {
		return fmt.Errorf("load subscriptions: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range subs {
		s := subs[i]
		r.subs[subKey{s.AccountID, s.Product}] = &s
	}
	for _, k := range keys {
		r.putKeyLocked(k)
	}
	return nil
}

func (r *Registry) putKeyLocked(k persistence.APIKey) {
	var h KeyHash
	copy(h[:], k.Hash)
	r.keys[h] = &keyEntry{hash: h, key: k, limit: r.limiterLocked(k.AccountID)}
}

// Limiter is the account's REST windows, the ones its keys' principals
// carry, for a caller that signs in without a key (a Telegram
// dashboard session): its requests count toward the same limit.
func (r *Registry) Limiter(account string) *Limiter {
	r.mu.RLock()
	w := r.limiters[account]
	r.mu.RUnlock()
	if w != nil {
		return w
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.limiterLocked(account)
}

func (r *Registry) limiterLocked(account string) *Limiter {
	w := r.limiters[account]
	if w == nil {
		w = &Limiter{account: account, shared: r.rates}
		r.limiters[account] = w
	}
	return w
}

// Authenticate checks a key presented for a route family that accepts the
// given products. It never touches the store.
func (r *Registry) Authenticate(key string, accepts ...protocol.Product) (Principal, Reason) {
	if key == "" {
		return Principal{}, Missing
	}
	p, ok := protocol.KeyProduct(key)
	if !ok || !contains(accepts, p) {
		return Principal{}, Malformed
	}
	return r.AuthenticateHash(HashKey(key), accepts...)
}

// AuthenticateHash is Authenticate for a key known by its hash only: a
// dashboard session remembers the hash of the key that opened it, so that
// revoking the key ends the session too.
func (r *Registry) AuthenticateHash(h KeyHash, accepts ...protocol.Product) (Principal, Reason) {
	r.mu.RLock()
	e := r.keys[h]
	var (
		sub *persistence.Subscription
		k   persistence.APIKey
		lim *Limiter
	)
	if e != nil {
		k, lim = e.key, e.limit
		sub = r.subs[subKey{k.AccountID, k.Product}]
	}
	r.mu.RUnlock()
	// The map lookup is by hash; compare in constant time all the same.
	if e == nil || subtle.ConstantTimeCompare(e.hash[:], h[:]) != 1 || !contains(accepts, k.Product) {
		return Principal{}, Unknown
	}
	switch k.State {
	case persistence.KeyDeactivated:
		return Principal{}, Deactivated
	case persistence.KeyRevoked:
		return Principal{}, Unknown
	}
	if sub == nil {
		return Principal{}, Unknown
	}
	pr := Principal{AccountID: k.AccountID, Product: k.Product, Sub: sub, Limiter: lim}
	if sub.Expired(r.now()) {
		return pr, Expired
	}
	return pr, OK
}

// Subscription returns the current subscription of (account, product).
func (r *Registry) Subscription(account string, p protocol.Product) (*persistence.Subscription, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.subs[subKey{account, p}]
	return s, ok
}

func contains(ps []protocol.Product, p protocol.Product) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}
