package storetest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

var accountTests = []test{
	{"create and get", func(t *testing.T, s persistence.Store) {
		// A time in another zone comes back as the same instant in UTC.
		created := at(time.Hour).In(time.FixedZone("X", 5*3600))
		a, err := s.CreateAccount(t.Context(), "acc-1", created)
		must(t, "CreateAccount", err)
		if a.ID != "acc-1" {
			t.Errorf("CreateAccount ID = %q, want acc-1", a.ID)
		}
		checkTime(t, "CreateAccount CreatedAt", a.CreatedAt, created)
		got, err := s.GetAccount(t.Context(), "acc-1")
		must(t, "GetAccount", err)
		if got.ID != "acc-1" {
			t.Errorf("GetAccount ID = %q, want acc-1", got.ID)
		}
		checkTime(t, "GetAccount CreatedAt", got.CreatedAt, created)
	}},
	{"get missing", func(t *testing.T, s persistence.Store) {
		_, err := s.GetAccount(t.Context(), "nobody")
		checkNotFound(t, "GetAccount(nobody)", err)
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		_, err = s.GetAccount(t.Context(), "ACC-1")
		checkNotFound(t, "GetAccount(ACC-1): ids are case-sensitive", err)
	}},
	{"create taken id", func(t *testing.T, s persistence.Store) {
		_, err := s.CreateAccount(t.Context(), "acc-1", at(0))
		must(t, "CreateAccount", err)
		_, err = s.CreateAccount(t.Context(), "acc-1", at(time.Hour))
		if !errors.Is(err, persistence.ErrExists) {
			t.Errorf("second CreateAccount: err = %v, want persistence.ErrExists", err)
		}
		got, err := s.GetAccount(t.Context(), "acc-1")
		must(t, "GetAccount", err)
		checkTime(t, "CreatedAt after the refused create", got.CreatedAt, at(0))
	}},
}

func createAccount(t *testing.T, s persistence.Store, id string) error {
	_, err := s.CreateAccount(t.Context(), id, at(0))
	return err
}

// fullSub has every optional field set, CASearchDailyLimit to 0 (set, not nil).
func fullSub(account string) persistence.Subscription {
	return persistence.Subscription{
		AccountID:          account,
		Product:            protocol.ProductB2B,
		Plan:               "enterprise",
		Modules:            []string{"zeta", "alpha", "mid"},
		MaxHandles:         250,
		MaxTweets:          7,
		MaxWallets:         3,
		CASearchDailyLimit: ptr(0),
		LateDelivery:       true,
		ExpiresAt:          ptr(at(30 * 24 * time.Hour)),
		CreatedAt:          at(time.Minute),
		UpdatedAt:          at(2 * time.Minute),
	}
}

func checkSub(t *testing.T, what string, got, want persistence.Subscription) {
	t.Helper()
	if got.AccountID != want.AccountID || got.Product != want.Product || got.Plan != want.Plan {
		t.Errorf("%s: key/plan = %s/%s/%s, want %s/%s/%s", what,
			got.AccountID, got.Product, got.Plan, want.AccountID, want.Product, want.Plan)
	}
	if !slices.Equal(got.Modules, want.Modules) || (got.Modules == nil) != (want.Modules == nil) {
		t.Errorf("%s: Modules = %#v, want %#v", what, got.Modules, want.Modules)
	}
	if got.MaxHandles != want.MaxHandles || got.MaxTweets != want.MaxTweets || got.MaxWallets != want.MaxWallets {
		t.Errorf("%s: max handles/tweets/wallets = %d/%d/%d, want %d/%d/%d", what,
			got.MaxHandles, got.MaxTweets, got.MaxWallets, want.MaxHandles, want.MaxTweets, want.MaxWallets)
	}
	switch {
	case (got.CASearchDailyLimit == nil) != (want.CASearchDailyLimit == nil):
		t.Errorf("%s: CASearchDailyLimit = %s, want %s", what, intPtr(got.CASearchDailyLimit), intPtr(want.CASearchDailyLimit))
	case got.CASearchDailyLimit != nil && *got.CASearchDailyLimit != *want.CASearchDailyLimit:
		t.Errorf("%s: CASearchDailyLimit = %d, want %d", what, *got.CASearchDailyLimit, *want.CASearchDailyLimit)
	}
	if got.LateDelivery != want.LateDelivery {
		t.Errorf("%s: LateDelivery = %v, want %v", what, got.LateDelivery, want.LateDelivery)
	}
	switch {
	case (got.ExpiresAt == nil) != (want.ExpiresAt == nil):
		t.Errorf("%s: ExpiresAt = %v, want %v", what, got.ExpiresAt, want.ExpiresAt)
	case got.ExpiresAt != nil:
		checkTime(t, what+": ExpiresAt", *got.ExpiresAt, *want.ExpiresAt)
	}
	checkTime(t, what+": CreatedAt", got.CreatedAt, want.CreatedAt)
	checkTime(t, what+": UpdatedAt", got.UpdatedAt, want.UpdatedAt)
}

var subscriptionTests = []test{
	{"round trip with every field set", func(t *testing.T, s persistence.Store) {
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		want := fullSub("acc-1")
		must(t, "PutSubscription", s.PutSubscription(t.Context(), want))
		got, err := s.GetSubscription(t.Context(), "acc-1", protocol.ProductB2B)
		must(t, "GetSubscription", err)
		checkSub(t, "GetSubscription", got, want)
	}},
	{"round trip with optional fields unset", func(t *testing.T, s persistence.Store) {
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		want := persistence.Subscription{
			AccountID: "acc-1", Product: protocol.ProductCW, Plan: "basic", MaxHandles: 5,
			CreatedAt: at(0), UpdatedAt: at(0),
		}
		must(t, "PutSubscription", s.PutSubscription(t.Context(), want))
		got, err := s.GetSubscription(t.Context(), "acc-1", protocol.ProductCW)
		must(t, "GetSubscription", err)
		checkSub(t, "GetSubscription", got, want)
	}},
	{"replace", func(t *testing.T, s persistence.Store) {
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		first := fullSub("acc-1")
		must(t, "PutSubscription", s.PutSubscription(t.Context(), first))
		second := persistence.Subscription{
			AccountID: "acc-1", Product: protocol.ProductB2B, Plan: "pro",
			Modules: []string{"b", "a"}, MaxHandles: 10,
			CreatedAt: at(time.Hour), // ignored: the first CreatedAt stays
			UpdatedAt: at(3 * time.Hour),
		}
		must(t, "PutSubscription again", s.PutSubscription(t.Context(), second))
		got, err := s.GetSubscription(t.Context(), "acc-1", protocol.ProductB2B)
		must(t, "GetSubscription", err)
		want := second
		want.CreatedAt = first.CreatedAt
		checkSub(t, "after replace", got, want)
		// Set the optional fields again: nil -> set works too.
		third := fullSub("acc-1")
		third.CASearchDailyLimit, third.UpdatedAt = ptr(40), at(4*time.Hour)
		must(t, "PutSubscription a third time", s.PutSubscription(t.Context(), third))
		got, err = s.GetSubscription(t.Context(), "acc-1", protocol.ProductB2B)
		must(t, "GetSubscription", err)
		checkSub(t, "after the third put", got, third)
		all, err := s.ListSubscriptions(t.Context())
		must(t, "ListSubscriptions", err)
		if len(all) != 1 {
			t.Errorf("ListSubscriptions has %d subscriptions, want 1", len(all))
		}
	}},
	{"missing", func(t *testing.T, s persistence.Store) {
		_, err := s.GetSubscription(t.Context(), "nobody", protocol.ProductCW)
		checkNotFound(t, "GetSubscription of a missing account", err)
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		must(t, "PutSubscription", s.PutSubscription(t.Context(), fullSub("acc-1")))
		_, err = s.GetSubscription(t.Context(), "acc-1", protocol.ProductCW)
		checkNotFound(t, "GetSubscription of a product without a subscription", err)
		sub := fullSub("nobody")
		err = s.PutSubscription(t.Context(), sub)
		checkNotFound(t, "PutSubscription for a missing account", err)
		all, err := s.ListSubscriptions(t.Context())
		must(t, "ListSubscriptions", err)
		if len(all) != 1 || all[0].AccountID != "acc-1" {
			t.Errorf("ListSubscriptions = %d subscriptions %v, want only acc-1's", len(all), all)
		}
	}},
	{"list", func(t *testing.T, s persistence.Store) {
		all, err := s.ListSubscriptions(t.Context())
		must(t, "ListSubscriptions on an empty store", err)
		if len(all) != 0 {
			t.Errorf("ListSubscriptions on an empty store = %v", all)
		}
		want := map[string]persistence.Subscription{}
		for _, acc := range []string{"acc-2", "acc-1"} {
			must(t, "CreateAccount", createAccount(t, s, acc))
			for i, p := range []protocol.Product{protocol.ProductET, protocol.ProductB2B, protocol.ProductPumpFun} {
				sub := fullSub(acc)
				sub.Product, sub.MaxHandles = p, 100*i+len(acc)
				if i == 1 {
					sub.CASearchDailyLimit, sub.ExpiresAt, sub.Modules = nil, nil, nil
				}
				must(t, "PutSubscription", s.PutSubscription(t.Context(), sub))
				want[acc+"/"+string(p)] = sub
			}
		}
		all, err = s.ListSubscriptions(t.Context())
		must(t, "ListSubscriptions", err)
		if len(all) != len(want) {
			t.Fatalf("ListSubscriptions has %d subscriptions, want %d", len(all), len(want))
		}
		for _, got := range all {
			k := got.AccountID + "/" + string(got.Product)
			w, ok := want[k]
			if !ok {
				t.Errorf("ListSubscriptions has unexpected (or duplicate) %s", k)
				continue
			}
			delete(want, k)
			checkSub(t, "ListSubscriptions "+k, got, w)
		}
	}},
}

func intPtr(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprintf("&%d", *p)
}

func hash(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func checkKey(t *testing.T, what string, got, want persistence.APIKey) {
	t.Helper()
	if !bytes.Equal(got.Hash, want.Hash) {
		t.Errorf("%s: Hash = %x, want %x", what, got.Hash, want.Hash)
	}
	if got.Product != want.Product || got.AccountID != want.AccountID || got.State != want.State {
		t.Errorf("%s: product/account/state = %s/%s/%s, want %s/%s/%s", what,
			got.Product, got.AccountID, got.State, want.Product, want.AccountID, want.State)
	}
	checkTime(t, what+": CreatedAt", got.CreatedAt, want.CreatedAt)
	checkTime(t, what+": UpdatedAt", got.UpdatedAt, want.UpdatedAt)
}

func newKey(name, account string, p protocol.Product, created time.Time) persistence.APIKey {
	return persistence.APIKey{
		Hash: hash(name), Product: p, AccountID: account, State: persistence.KeyActive,
		CreatedAt: created, UpdatedAt: created,
	}
}

func keyState(t *testing.T, s persistence.Store, name string) persistence.KeyState {
	t.Helper()
	k, err := s.KeyByHash(t.Context(), hash(name))
	must(t, "KeyByHash("+name+")", err)
	return k.State
}

var keyTests = []test{
	{"issue and look up", func(t *testing.T, s persistence.Store) {
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		k := newKey("k1", "acc-1", protocol.ProductCW, at(time.Minute))
		must(t, "IssueKey", s.IssueKey(t.Context(), k))
		got, err := s.KeyByHash(t.Context(), hash("k1"))
		must(t, "KeyByHash", err)
		checkKey(t, "KeyByHash", got, k)
	}},
	{"issue stores the key active", func(t *testing.T, s persistence.Store) {
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		k := newKey("k1", "acc-1", protocol.ProductCW, at(time.Minute))
		k.State = persistence.KeyDeactivated
		must(t, "IssueKey", s.IssueKey(t.Context(), k))
		if st := keyState(t, s, "k1"); st != persistence.KeyActive {
			t.Errorf("state after IssueKey = %q, want active", st)
		}
	}},
	{"missing", func(t *testing.T, s persistence.Store) {
		_, err := s.KeyByHash(t.Context(), hash("nope"))
		checkNotFound(t, "KeyByHash", err)
		_, err = s.SetKeyState(t.Context(), hash("nope"), persistence.KeyDeactivated, at(0))
		checkNotFound(t, "SetKeyState", err)
		err = s.IssueKey(t.Context(), newKey("k1", "nobody", protocol.ProductCW, at(0)))
		checkNotFound(t, "IssueKey for a missing account", err)
		_, err = s.KeyByHash(t.Context(), hash("k1"))
		checkNotFound(t, "KeyByHash of a key refused at issue", err)
	}},
	{"a new key revokes the pair's earlier keys", func(t *testing.T, s persistence.Store) {
		for _, a := range []string{"acc-1", "acc-2"} {
			must(t, "CreateAccount", createAccount(t, s, a))
		}
		keys := []persistence.APIKey{
			newKey("old-active", "acc-1", protocol.ProductCW, at(time.Minute)),
			newKey("old-deactivated", "acc-1", protocol.ProductCW, at(2*time.Minute)),
		}
		// Issued in order: old-deactivated revokes old-active.
		for _, k := range keys {
			must(t, "IssueKey", s.IssueKey(t.Context(), k))
		}
		_, err := s.SetKeyState(t.Context(), hash("old-deactivated"), persistence.KeyDeactivated, at(3*time.Minute))
		must(t, "SetKeyState", err)
		others := []persistence.APIKey{
			newKey("other-product", "acc-1", protocol.ProductCT, at(time.Minute)),
			newKey("other-account", "acc-2", protocol.ProductCW, at(time.Minute)),
		}
		for _, k := range others {
			must(t, "IssueKey", s.IssueKey(t.Context(), k))
		}
		nk := newKey("new", "acc-1", protocol.ProductCW, at(time.Hour))
		must(t, "IssueKey new", s.IssueKey(t.Context(), nk))

		for name, want := range map[string]persistence.APIKey{
			"old-active":      {Hash: hash("old-active"), Product: protocol.ProductCW, AccountID: "acc-1", State: persistence.KeyRevoked, CreatedAt: at(time.Minute), UpdatedAt: at(2 * time.Minute)},
			"old-deactivated": {Hash: hash("old-deactivated"), Product: protocol.ProductCW, AccountID: "acc-1", State: persistence.KeyRevoked, CreatedAt: at(2 * time.Minute), UpdatedAt: at(time.Hour)},
			"new":             nk,
			"other-product":   others[0],
			"other-account":   others[1],
		} {
			got, err := s.KeyByHash(t.Context(), hash(name))
			must(t, "KeyByHash("+name+")", err)
			checkKey(t, name, got, want)
		}
	}},
	{"set state", func(t *testing.T, s persistence.Store) {
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		k := newKey("k1", "acc-1", protocol.ProductET, at(time.Minute))
		must(t, "IssueKey", s.IssueKey(t.Context(), k))
		got, err := s.SetKeyState(t.Context(), hash("k1"), persistence.KeyDeactivated, at(time.Hour))
		must(t, "SetKeyState", err)
		want := k
		want.State, want.UpdatedAt = persistence.KeyDeactivated, at(time.Hour)
		checkKey(t, "SetKeyState result", got, want)
		got, err = s.KeyByHash(t.Context(), hash("k1"))
		must(t, "KeyByHash", err)
		checkKey(t, "KeyByHash after SetKeyState", got, want)

		_, err = s.SetKeyState(t.Context(), hash("k1"), persistence.KeyState("bogus"), at(2*time.Hour))
		if err == nil {
			t.Errorf("SetKeyState(bogus) succeeded")
		}
		got, err = s.KeyByHash(t.Context(), hash("k1"))
		must(t, "KeyByHash", err)
		checkKey(t, "KeyByHash after a refused SetKeyState", got, want)
	}},
	{"issue of a taken hash changes nothing", func(t *testing.T, s persistence.Store) {
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		k1 := newKey("k1", "acc-1", protocol.ProductCW, at(time.Minute))
		must(t, "IssueKey", s.IssueKey(t.Context(), k1))
		k2 := newKey("k2", "acc-1", protocol.ProductCT, at(2*time.Minute))
		must(t, "IssueKey", s.IssueKey(t.Context(), k2))
		// k1's hash again, for k2's pair: refused, and k2 must stay active
		// (the revocation is rolled back with the insert).
		dup := newKey("k1", "acc-1", protocol.ProductCT, at(time.Hour))
		err := s.IssueKey(t.Context(), dup)
		if !errors.Is(err, persistence.ErrExists) {
			t.Errorf("IssueKey of a taken hash: err = %v, want persistence.ErrExists", err)
		}
		got, err := s.KeyByHash(t.Context(), hash("k2"))
		must(t, "KeyByHash(k2)", err)
		checkKey(t, "k2 after the refused issue", got, k2)
		got, err = s.KeyByHash(t.Context(), hash("k1"))
		must(t, "KeyByHash(k1)", err)
		checkKey(t, "k1 after the refused issue", got, k1)
	}},
	{"list", func(t *testing.T, s persistence.Store) {
		keys, err := s.ListKeys(t.Context())
		must(t, "ListKeys on an empty store", err)
		if len(keys) != 0 {
			t.Errorf("ListKeys on an empty store = %v", keys)
		}
		must(t, "CreateAccount", createAccount(t, s, "acc-1"))
		for i, name := range []string{"a", "b", "c"} {
			must(t, "IssueKey", s.IssueKey(t.Context(), newKey(name, "acc-1", protocol.ProductCW, at(time.Duration(i)*time.Minute))))
		}
		must(t, "IssueKey", s.IssueKey(t.Context(), newKey("d", "acc-1", protocol.ProductET, at(time.Minute))))
		keys, err = s.ListKeys(t.Context())
		must(t, "ListKeys", err)
		got := map[string]persistence.KeyState{}
		for _, k := range keys {
			got[string(k.Hash)] = k.State
		}
		want := map[string]persistence.KeyState{
			string(hash("a")): persistence.KeyRevoked, string(hash("b")): persistence.KeyRevoked,
			string(hash("c")): persistence.KeyActive, string(hash("d")): persistence.KeyActive,
		}
		if len(keys) != len(want) {
			t.Errorf("ListKeys has %d keys, want %d", len(keys), len(want))
		}
		for h, st := range want {
			if got[h] != st {
				t.Errorf("ListKeys: key %x state %q, want %q", h[:4], got[h], st)
			}
		}
	}},
}
