package pumpfun

import (
	"context"
	"fmt"
	"testing"

	"github.com/alertd/alertd/persistence"
)

// Two registries over one store are two nodes: what one adds or removes,
// the other reloads by the account it announced.
func TestReloadByAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &memStore{}
	a, b := NewRegistry(st), NewRegistry(st)
	var heard []string
	a.OnChange(func(acct string) { heard = append(heard, acct) })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Add(ctx, persistence.PFTarget{AccountID: "x", Wallet: "W1", AlertTypes: []string{"callouts"}}, 10))
	must(a.Add(ctx, persistence.PFTarget{AccountID: "y", Wallet: "W1", AlertTypes: []string{"token_launch"}}, 10))
	must(b.Reload(ctx, []string{"x"}))
	if got := fmt.Sprint(b.watching("W1", bitsOf([]string{"callouts"})), b.List("y")); got != "[x] []" {
		t.Fatalf("after reloading x: %s", got)
	}
	must(b.Reload(ctx, nil))
	if got := b.watching("W1", bitsOf([]string{"token_launch"})); fmt.Sprint(got) != "[y]" {
		t.Fatalf("after a full reload: %v", got)
	}
	must(a.Remove(ctx, "x", "W1"))
	must(b.Reload(ctx, []string{"x"}))
	if got := fmt.Sprint(b.watching("W1", bitsOf([]string{"callouts"})), len(b.List("x")), heard); got != "[] 0 [x y x]" {
		t.Fatalf("after the remove: %s", got)
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if _, ok := b.byAccount["x"]; ok {
		t.Fatal("an emptied account stays in memory")
	}
}
