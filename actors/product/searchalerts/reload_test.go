package searchalerts

import (
	"context"
	"fmt"
	"testing"
)

// Two registries over one store are two nodes: what one creates or
// removes, the other reloads by the account it announced.
func TestReloadByAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &memStore{}
	a, b := NewRegistry(st, intervals), NewRegistry(st, intervals)
	var heard []string
	a.OnChange(func(acct string) { heard = append(heard, acct) })
	q, err := a.Create(ctx, "x", "solana etf", "5m", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, "y", "bitcoin", "5m", t0); err != nil {
		t.Fatal(err)
	}
	post := map[string]struct{}{"solana": {}, "etf": {}, "bitcoin": {}}
	if err := b.Reload(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(b.match(post), b.Count("x"), b.Count("y"), b.empty()); got != fmt.Sprint([]int64{q.ID}, 1, 0, false) {
		t.Fatalf("after reloading x: %s", got)
	}
	if err := a.Remove(ctx, "x", q.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(b.match(post)), b.get(q.ID) == nil, b.empty(), heard); got != "0 true true [x y x]" {
		t.Fatalf("after the remove: %s", got)
	}
	if err := b.Reload(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(b.Count("y"), len(b.match(post))); got != "1 1" {
		t.Fatalf("after a full reload: %s", got)
	}
}
